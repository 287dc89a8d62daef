import { Redis } from 'ioredis';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { events, WebhookSender } from '../../sim/service/index.js';
import { SecretBox } from '../../src/connections/secret-box.js';
import { zohoTokenBinding } from '../../src/connections/sealed-binding.js';
import type { ZohoClient } from '../../src/record-crm/zoho/zoho.client.js';
import { CapturingLogger, EVENTS_SECRET, REDIS_BASE, startHarness, TEST_CONNECTIONS_KEY, waitFor, type Harness } from '../support/harness.js';
import { ZohoClients } from '../support/zoho-clients.js';

/*
 * What crm-sync keeps in Redis opens nothing (docs/security.md, "What is encrypted or signed"): the Zoho access token
 * is sealed with the connections key, and one read back is used only when it opens and names an API domain the
 * connection may use. Zoho adapters on their own (no app), db 1 as the other Zoho client files, a queue prefix each.
 */
const REDIS_DB = 1;
const HOUR_MS = 3_600_000;

describe('the Zoho access token in Redis', () => {
  const clients = new ZohoClients();
  let redis: Redis;
  /** A host of someone else's that would collect a token sent to it. */
  let collector: Server;
  let collectorUrl: string;
  const collected: string[] = [];

  beforeAll(async () => {
    redis = new Redis(`${REDIS_BASE}/${REDIS_DB}`);
    await clients.start();
    collector = createServer((req, res) => {
      collected.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[],"info":{"more_records":false}}');
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    collectorUrl = `http://127.0.0.1:${(collector.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    redis.disconnect();
    await new Promise((resolve) => collector.close(resolve));
    await clients.stop();
  });

  /** Two replicas of one deployment share a prefix; each test has one of its own. */
  const replica = (prefix: string, env: Record<string, string> = {}): ZohoClient => clients.client({ QUEUE_PREFIX: prefix, ...env });
  const newPrefix = () => `crm-sync-test-redis-secrets-${randomBytes(4).toString('hex')}`;
  const lastTokenSent = () => String(clients.zoho.api.requests.at(-1)?.headers.authorization).replace('Zoho-oauthtoken ', '');
  const tokenKeyOf = async (prefix: string): Promise<string> => {
    const keys = await redis.keys(`${prefix}:zoho:*:token`);
    expect(keys).toHaveLength(1);
    return keys[0];
  };
  /** What a replica with a fresh process finds: the other's token, one that does not open, or one of another host. */
  const notes = (client: ZohoClient) => client.listNotes({ module: 'Deals', recordId: clients.zoho.addRecord('Deals') });

  it('is sealed with the connections key: Redis holds no token, no API domain in the clear; another replica uses it', async () => {
    const prefix = newPrefix();
    await expect(notes(replica(prefix))).resolves.toEqual([]);
    const token = lastTokenSent();
    expect(token).toMatch(/^1000\./);
    const stored = (await redis.get(await tokenKeyOf(prefix)))!;
    expect(stored).toMatch(/^v2\.[\w-]+\.[\w-]+$/);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(clients.zoho.apiDomain);

    const issued = clients.zoho.tokensIssued;
    await expect(notes(replica(prefix))).resolves.toEqual([]);
    expect(lastTokenSent()).toBe(token);
    expect(clients.zoho.tokensIssued).toBe(issued);
  });

  it('one written into Redis in the clear is not used, whatever host it names: a new token is asked for and sealed', async () => {
    collected.length = 0;
    const prefix = newPrefix();
    await notes(replica(prefix));
    const key = await tokenKeyOf(prefix);
    const forged = { accessToken: '1000.forged.token', apiDomain: collectorUrl, renewAt: Date.now() + HOUR_MS, scopes: null };
    await redis.set(key, JSON.stringify(forged), 'PX', HOUR_MS);

    const issued = clients.zoho.tokensIssued;
    await expect(notes(replica(prefix, { RECORD_CRM_ALLOW_CUSTOM_DOMAINS: 'false' }))).resolves.toEqual([]);
    await expect(notes(replica(prefix))).resolves.toEqual([]);
    expect(collected).toEqual([]);
    expect(lastTokenSent()).not.toBe(forged.accessToken);
    expect(clients.zoho.tokensIssued).toBeGreaterThan(issued);
    expect(await redis.get(key)).toMatch(/^v2\./);
  });

  it('one that opens but names an API domain the connection may not use is not used either', async () => {
    collected.length = 0;
    const prefix = newPrefix();
    await notes(replica(prefix));
    const key = await tokenKeyOf(prefix);
    const hash = key.split(':').at(-2)!;
    const box = new SecretBox(Buffer.from(TEST_CONNECTIONS_KEY, 'hex'));
    const foreign = { accessToken: '1000.sealed.elsewhere', apiDomain: collectorUrl, renewAt: Date.now() + HOUR_MS, scopes: null };
    await redis.set(key, box.seal(foreign, zohoTokenBinding(hash)), 'PX', HOUR_MS);

    await expect(notes(replica(prefix, { RECORD_CRM_ALLOW_CUSTOM_DOMAINS: 'false' }))).resolves.toEqual([]);
    expect(collected).toEqual([]);
    expect(lastTokenSent()).not.toBe(foreign.accessToken);
  });
});

/** A port free now (for a redis-server of the test's own). */
async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const onPath = (command: string): boolean => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;

/*
 * REDIS_URL with a password: a redis-server of this test's own with --requirepass, on a free port, started and stopped
 * here (the shared Redis's configuration is not touched). Skipped where redis-server is not installed.
 */
(onPath('redis-server') ? describe : describe.skip)('a Redis that needs a password (REDIS_URL with credentials)', () => {
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const logs = new CapturingLogger();
  let server: ChildProcess;
  let port: number;
  let h: Harness;
  let direct: Redis;

  beforeAll(async () => {
    port = await freePort();
    server = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--requirepass', password, '--save', '', '--appendonly', 'no', '--dir', tmpdir()],
      {
        stdio: 'ignore',
      },
    );
    direct = new Redis({ port, host: '127.0.0.1', password, lazyConnect: true, maxRetriesPerRequest: 1 });
    await waitFor(() => direct.ping().catch(() => null), 10_000, 'redis-server to answer');
    h = await startHarness({ redisDb: 0, env: { REDIS_URL: `redis://:${password}@127.0.0.1:${port}/2` }, logger: logs });
  });
  afterAll(async () => {
    await h?.close();
    direct?.disconnect();
    server?.kill('SIGTERM');
  });

  it('is used for the queues and what the replicas share; the password is in no log line', async () => {
    expect((await fetch(`${h.url}/health/ready`)).status).toBe(200);
    const project = h.service.addProject();
    const answer = await new WebhookSender().deliverOnce(`${h.url}/webhooks/events`, events.projectCreated(project), { secret: EVENTS_SECRET });
    expect(answer.status).toBe(200);
    await waitFor(
      async () => {
        const [row] = await h.database.query<Array<{ status: string }>>(`SELECT status FROM webhook_inbox ORDER BY id DESC LIMIT 1`);
        return row?.status === 'routed' ? row : null;
      },
      15_000,
      'the delivery to be routed through the queues',
    );
    expect((await fetch(`${h.url}/api/me`, { headers: { authorization: 'Bearer not-a-token-at-all-000' } })).status).toBe(401);

    await direct.select(2);
    const keys = await direct.keys(`${h.config.queuePrefix}*`);
    expect(keys.some((key) => key.includes(':sign-in-failures:'))).toBe(true);
    expect(keys.some((key) => key.includes(':webhooks:'))).toBe(true);
    expect(logs.lines.join('\n')).not.toContain(password);
  });
});
