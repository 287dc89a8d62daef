import { execFileSync, execSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { DAEMON_ENTRY, DAEMON_NODE_FLAGS, freePort } from '../../bench/support.js';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { ADMIN_TOKEN, PG_BASE, REDIS_BASE, removeQueueKeys, uniqueDatabaseUrl, waitFor } from '../support/harness.js';

const REDIS_DB = 13;
const TOKEN_LINE = /the daemon made this admin token: (\S+) —/;
const IN_USE_LINE = 'the admin token made on the first start is in use';

interface LogLine {
  level: number;
  msg: string;
  context?: string;
}

interface Daemon {
  process: ChildProcess;
  url: string;
  port: number;
  output(): string;
  lines(): LogLine[];
  stop(): Promise<void>;
}

const sha256 = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

/**
 * The built daemon as a fresh install runs it: `node dist/main.js` with only the variables given (not the test's own
 * environment), at the default LOG_LEVEL (info). Resolves once it is ready (or only live, when Postgres is held back).
 */
async function launch(env: Record<string, string>, until: 'ready' | 'live' = 'ready'): Promise<Daemon> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, DAEMON_ENTRY], {
    env: { PATH: process.env.PATH, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const daemon: Daemon = {
    process: child,
    url,
    port,
    output: () => output,
    lines: () =>
      output
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as LogLine),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`daemon exited with ${child.exitCode}: ${output.slice(-2000)}`);
      return fetch(`${url}${until === 'ready' ? '/health/ready' : '/health'}`).then(
        (r) => r.status === 200,
        () => false,
      );
    },
    30_000,
    `the daemon to be ${until}`,
  );
  return daemon;
}

const tokenLines = (daemon: Daemon): LogLine[] => daemon.lines().filter((l) => TOKEN_LINE.test(l.msg));
const printedToken = (line: LogLine): string => TOKEN_LINE.exec(line.msg)![1];

/** Waits until the daemon has dealt with the admin token: printed a new one or said the stored one is in use. */
const adminTokenSettled = (daemon: Daemon): Promise<boolean> =>
  waitFor(() => daemon.lines().some((l) => TOKEN_LINE.test(l.msg) || l.msg.includes(IN_USE_LINE)), 20_000, 'the admin token line');

const me = (daemon: Daemon, token: string): Promise<Response> => fetch(`${daemon.url}/api/me`, { headers: { authorization: `Bearer ${token}` } });

async function sql(databaseUrl: string, statement: string, params: unknown[]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(statement, params);
  } finally {
    await client.end();
  }
}

async function credentials(databaseUrl: string): Promise<Array<{ name: string; token_hash: string }>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<{ name: string; token_hash: string }>('SELECT name, token_hash FROM admin_credential ORDER BY name')).rows;
  } finally {
    await client.end();
  }
}

/** A TCP proxy to Postgres that refuses every connection until `open()`: Postgres "down", then back. */
async function postgresGate(): Promise<{ port: number; open(): void; close(): Promise<void> }> {
  const target = new URL(PG_BASE);
  let open = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    if (!open) return void client.destroy();
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined).on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    open: () => (open = true),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('first start with nothing set', () => {
  const folder = mkdtempSync(join(tmpdir(), 'crm-sync-first-start-'));
  const databases: string[] = [];
  const prefixes: string[] = [];
  const daemons: Daemon[] = [];

  /** DATABASE_URL and REDIS_URL, plus what keeps this test to itself: a queue prefix and a key file in a temp folder. */
  function bareEnv(databaseUrl: string, keyFile: string, extra: Record<string, string> = {}): Record<string, string> {
    const prefix = `crm-sync-test-${randomBytes(4).toString('hex')}`;
    prefixes.push(prefix);
    return { DATABASE_URL: databaseUrl, REDIS_URL: `${REDIS_BASE}/${REDIS_DB}`, QUEUE_PREFIX: prefix, CONNECTIONS_KEY_FILE: keyFile, ...extra };
  }

  async function started(env: Record<string, string>, until: 'ready' | 'live' = 'ready'): Promise<Daemon> {
    const daemon = await launch(env, until);
    daemons.push(daemon);
    return daemon;
  }

  function freshDatabase(): string {
    const databaseUrl = uniqueDatabaseUrl();
    databases.push(databaseUrl);
    return databaseUrl;
  }

  beforeAll(() => {
    if (!existsSync(DAEMON_ENTRY)) execSync('npm run build', { stdio: 'ignore' });
  }, 120_000);

  afterAll(async () => {
    await Promise.all(daemons.map((d) => d.stop()));
    await Promise.all(databases.map((url) => dropDatabase(url).catch(() => undefined)));
    for (const prefix of prefixes) await removeQueueKeys(REDIS_DB, prefix);
    rmSync(folder, { recursive: true, force: true });
  }, 60_000);

  describe('one daemon, started twice on one database', () => {
    const databaseUrl = freshDatabase();
    const keyFile = join(folder, 'single', 'connections.key');
    let token: string;

    it('starts with no connection at all, prints one admin token with the console address, which signs in; only its hash is stored', async () => {
      const daemon = await started(bareEnv(databaseUrl, keyFile));
      await adminTokenSettled(daemon);
      const lines = tokenLines(daemon);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 40, context: 'AdminToken' });
      expect(lines[0].msg).toContain(`sign in with it at http://localhost:${daemon.port}/admin.`);
      expect(lines[0].msg).toContain('DELETE FROM admin_credential');
      token = printedToken(lines[0]);
      expect(daemon.output().split(token)).toHaveLength(2);

      expect((await me(daemon, token)).status).toBe(200);
      expect(await (await me(daemon, token)).json()).toEqual({ name: 'admin', role: 'admin' });
      expect((await me(daemon, `${token}x`)).status).toBe(401);
      const login = await fetch(`${daemon.url}/admin/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      expect(login.status).toBe(204);
      const cookie = login.headers.get('set-cookie')!.split(';')[0];
      expect(cookie).toMatch(/^crm_sync_session=admin\./);
      expect(await (await fetch(`${daemon.url}/api/me`, { headers: { cookie } })).json()).toEqual({ name: 'admin', role: 'admin' });

      expect((await fetch(`${daemon.url}/health`)).status).toBe(200);
      const page = await fetch(`${daemon.url}/admin`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      const webhook = await fetch(`${daemon.url}/webhooks/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(webhook.status).toBe(404);

      expect(await credentials(databaseUrl)).toEqual([{ name: 'admin', token_hash: sha256(token) }]);
      const dump = execFileSync('pg_dump', ['--no-owner', databaseUrl], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      expect(dump).toContain(sha256(token));
      expect(dump).not.toContain(token);
    }, 60_000);

    it('generates the connections key file (0600) and says where, and that it must be backed up', () => {
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      const line = daemons[0].lines().find((l) => l.msg.includes('generated the connections key'));
      expect(line).toMatchObject({ level: 40, msg: expect.stringContaining(`at ${keyFile}: back this file up`) });
    });

    it('prints no token on a later start, says the first one is in use, and the first token still signs in', async () => {
      await daemons[0].stop();
      const daemon = await started(bareEnv(databaseUrl, keyFile));
      await adminTokenSettled(daemon);
      expect(tokenLines(daemon)).toEqual([]);
      expect(daemon.output()).not.toContain(token);
      expect(daemon.lines().find((l) => l.msg.includes(IN_USE_LINE))?.msg).toContain('set ADMIN_TOKEN, or run DELETE FROM admin_credential and restart');
      expect(daemon.lines().some((l) => l.msg.includes(`connections key read from ${keyFile}`))).toBe(true);
      expect(await (await me(daemon, token)).json()).toEqual({ name: 'admin', role: 'admin' });
      expect(await credentials(databaseUrl)).toEqual([{ name: 'admin', token_hash: sha256(token) }]);
    }, 60_000);

    it('refuses a hash a database writer put in admin_credential (with the old MAC, or none): that token never signs in', async () => {
      await daemons[daemons.length - 1].stop();
      const mine = randomBytes(32).toString('base64url');
      for (const mac of ['keep', 'none']) {
        await sql(databaseUrl, `UPDATE admin_credential SET token_hash = $1${mac === 'none' ? ', token_mac = NULL' : ''} WHERE name = 'admin'`, [sha256(mine)]);
        const daemon = await started(bareEnv(databaseUrl, keyFile));
        const refusal = await waitFor(
          () => daemon.lines().find((l) => l.msg.includes('the admin token stored in admin_credential')),
          20_000,
          'the refusal line',
        );
        expect(refusal).toMatchObject({
          level: 50,
          msg: expect.stringContaining(mac === 'none' ? 'carries no MAC' : "is not signed with this server's secret"),
        });
        expect((await me(daemon, mine)).status).toBe(401);
        expect((await me(daemon, token)).status).toBe(401);
        await daemon.stop();
      }
    }, 90_000);
  });

  it('two daemons starting at once on a fresh database print one token between them, and both accept it', async () => {
    const databaseUrl = freshDatabase();
    const keyFile = join(folder, 'pair', 'connections.key');
    const pair = await Promise.all([started(bareEnv(databaseUrl, keyFile)), started(bareEnv(databaseUrl, keyFile))]);
    await Promise.all(pair.map(adminTokenSettled));
    const printed = pair.flatMap(tokenLines);
    expect(printed).toHaveLength(1);
    const token = printedToken(printed[0]);
    expect(pair.filter((d) => d.lines().some((l) => l.msg.includes(IN_USE_LINE)))).toHaveLength(1);
    for (const daemon of pair) expect((await me(daemon, token)).status).toBe(200);
    expect(await credentials(databaseUrl)).toEqual([{ name: 'admin', token_hash: sha256(token) }]);
    await Promise.all(pair.map((d) => d.stop()));
  }, 60_000);

  it('starts and serves while Postgres is down; the token is made, printed and accepted once Postgres answers', async () => {
    const gate = await postgresGate();
    try {
      const databaseUrl = freshDatabase();
      const gated = new URL(databaseUrl);
      gated.host = `127.0.0.1:${gate.port}`;
      const daemon = await started(bareEnv(gated.toString(), join(folder, 'late', 'connections.key')), 'live');
      expect((await fetch(`${daemon.url}/admin`)).status).toBe(200);
      // It has tried Postgres and found it down (not merely not tried yet), and made no token meanwhile.
      await waitFor(() => daemon.lines().some((l) => l.msg.startsWith('database not ready')), 30_000, 'the daemon to find Postgres down');
      expect(daemon.lines().filter((l) => l.context === 'AdminToken')).toEqual([]);
      expect(
        (await fetch(`${daemon.url}/admin/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"token":"x"}' })).status,
      ).toBe(401);
      gate.open();
      await adminTokenSettled(daemon);
      const [line] = tokenLines(daemon);
      expect((await me(daemon, printedToken(line))).status).toBe(200);
      await daemon.stop();
    } finally {
      await gate.close();
    }
  }, 60_000);

  it('with an admin in ADMIN_TOKENS makes no token and stores nothing; with only a viewer there, makes one', async () => {
    const adminToken = 'vera-admin-token-0123456789';
    const withAdmin = freshDatabase();
    const daemon = await started(bareEnv(withAdmin, join(folder, 'tokens', 'connections.key'), { ADMIN_TOKENS: `vera:admin:${adminToken}` }));
    expect((await me(daemon, adminToken)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(daemon.lines().filter((l) => l.context === 'AdminToken')).toEqual([]);
    expect(await credentials(withAdmin)).toEqual([]);
    await daemon.stop();

    const withViewer = freshDatabase();
    const other = await started(bareEnv(withViewer, join(folder, 'viewer', 'connections.key'), { ADMIN_TOKENS: 'vic:viewer:vic-viewer-token-0123456789' }));
    await adminTokenSettled(other);
    const [line] = tokenLines(other);
    expect(await (await me(other, printedToken(line))).json()).toEqual({ name: 'admin', role: 'admin' });
    expect(await credentials(withViewer)).toHaveLength(1);
    await other.stop();
  }, 60_000);

  it('with ADMIN_TOKEN set makes no token and stores nothing', async () => {
    const databaseUrl = freshDatabase();
    const daemon = await started(bareEnv(databaseUrl, join(folder, 'set', 'connections.key'), { ADMIN_TOKEN }));
    expect((await me(daemon, ADMIN_TOKEN)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(daemon.lines().filter((l) => l.context === 'AdminToken')).toEqual([]);
    expect(await credentials(databaseUrl)).toEqual([]);
    expect(daemon.output()).not.toContain(ADMIN_TOKEN);
    await daemon.stop();
  }, 60_000);
});
