import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Readable } from 'node:stream';
import { loadConfig } from '../../src/config/app-config.js';
import { MetricsService } from '../../src/observability/metrics.service.js';
import { OutboundError } from '../../src/http/outbound-error.js';
import { SharedRedisService } from '../../src/queues/shared-redis.service.js';
import { RECORD_CRM, type RecordCrm } from '../../src/record-crm/record-crm.js';
import { ZohoUsage } from '../../src/record-crm/zoho/zoho-usage.js';
import { ZohoClient } from '../../src/record-crm/zoho/zoho.client.js';
import { ServiceApiClient } from '../../src/service-api/service-api.client.js';
import { makePdf } from '../../sim/common/sim-server.js';
import { ServiceSim } from '../../sim/service/service-sim.js';
import { ZohoSim } from '../../sim/zoho/index.js';
import { environmentConnections } from '../support/environment-connections.js';
import { baseEnv, fastRetries, REDIS_BASE, startHarness, waitFor, type Harness } from '../support/harness.js';

const REDIS_DB = 10;
const MAX_RPS = 5;

/**
 * Two replicas of one deployment: one database and one queue prefix (hence one rate cap and one Zoho token), one
 * service, one Zoho. The second harness's own simulators stay unused.
 */
async function twoReplicas(options: { recordCrm?: boolean; env?: Record<string, string> }): Promise<[Harness, Harness]> {
  const env = { QUEUE_PREFIX: `crm-sync-test-shared-${randomBytes(4).toString('hex')}`, ...options.env };
  const first = await startHarness({ redisDb: REDIS_DB, recordCrm: options.recordCrm, env });
  const zoho = first.zoho?.daemonEnv() ?? {};
  const second = await startHarness({
    redisDb: REDIS_DB,
    databaseUrl: first.databaseUrl,
    env: { ...env, ...zoho, ...first.service.daemonEnv() },
  });
  return [first, second];
}

/** The second first: closing a harness removes its prefix's keys, and the first drops the database. */
async function closeBoth(replicas: Harness[]): Promise<void> {
  await replicas[1]?.close();
  await replicas[0]?.close();
}

describe('SERVICE_API_MAX_RPS across two replicas', () => {
  let replicas: [Harness, Harness];
  let clients: ServiceApiClient[];
  beforeAll(async () => {
    replicas = await twoReplicas({ env: { SERVICE_API_MAX_RPS: String(MAX_RPS) } });
    clients = replicas.map((h) => h.app.get(ServiceApiClient));
  });
  afterAll(() => closeBoth(replicas));

  it('holds in every 1 s window for both together, at close to the cap', async () => {
    const sim = replicas[0].service;
    const started = Date.now();
    const calls = [0, 0];
    await Promise.all(
      clients.flatMap((client, replica) =>
        Array.from({ length: 4 }, async () => {
          while (Date.now() - started < 4_000) {
            await client.listProjects({ perPage: 1 });
            calls[replica]++;
          }
        }),
      ),
    );
    const times = sim.requestsTo('GET', '/v1/projects').map((r) => r.at);
    expect(calls[0]).toBeGreaterThan(2);
    expect(calls[1]).toBeGreaterThan(2);
    expect(sim.maxApiRequestsInWindow(1_000)).toBeLessThanOrEqual(MAX_RPS);
    const perSecond = ((times.length - 1) * 1000) / (Math.max(...times) - Math.min(...times));
    expect(perSecond).toBeGreaterThanOrEqual(0.6 * MAX_RPS);
  });

  it("a 429 with Retry-After on one replica holds the other's calls back too", async () => {
    const sim = replicas[0].service;
    const redis = new Redis(`${REDIS_BASE}/${REDIS_DB}`);
    try {
      sim.injectFault({ method: 'GET', path: '/v1/projects', times: 1, status: 429, retryAfterSeconds: 2 });
      const from = sim.requests.length;
      const first = clients[0].listProjects();
      const refused = await waitFor(() => sim.requests.slice(from).find((r) => r.path === '/v1/projects'), 15_000, 'the refused call');
      // The first replica has read the 429 once the shared hold is set.
      await waitFor(
        async () => Number(await redis.hget(`${replicas[0].config.queuePrefix}:ratelimit:service`, 'hold')) / 1000 > refused.at,
        15_000,
        'the hold',
      );
      const held = clients[1].listProjects();
      await Promise.all([first, held]);
      const after = sim.requests.slice(from).filter((r) => r.path === '/v1/projects');
      expect(after).toHaveLength(3);
      for (const call of after.slice(1)) expect(call.at - refused.at).toBeGreaterThanOrEqual(1_990);
    } finally {
      redis.disconnect();
    }
  });
});

describe('one Zoho access token for two replicas', () => {
  let replicas: [Harness, Harness];
  let crms: RecordCrm[];
  beforeAll(async () => {
    replicas = await twoReplicas({ recordCrm: true });
    crms = replicas.map((h) => h.app.get<RecordCrm>(RECORD_CRM));
  });
  afterAll(() => closeBoth(replicas));

  const pdf = makePdf('shared token');
  const upload = (crm: RecordCrm, recordId: string, n: number) =>
    crm.uploadAttachment({ module: 'Deals', recordId }, `proposal ${n}.pdf`, () => Promise.resolve({ stream: Readable.from([pdf]), size: pdf.length }));

  it('pushing attachments from both at once asks Zoho for one token', async () => {
    const zoho = replicas[0].zoho!;
    expect(zoho.tokenRequests).toHaveLength(0);
    const recordId = zoho.addRecord('Deals');
    await Promise.all(crms.flatMap((crm, replica) => [0, 1, 2, 3].map((n) => upload(crm, recordId, replica * 10 + n))));
    expect(zoho.attachmentsOf('Deals', recordId)).toHaveLength(8);
    expect(zoho.tokenRequests).toHaveLength(1);
    expect(zoho.tokensIssued).toBe(1);
  });

  it('a token Zoho calls invalid is renewed once for both', async () => {
    const zoho = replicas[0].zoho!;
    zoho.expireAllTokens();
    const recordId = zoho.addRecord('Deals');
    await Promise.all(crms.flatMap((crm, replica) => [0, 1, 2].map((n) => upload(crm, recordId, replica * 10 + n))));
    expect(zoho.attachmentsOf('Deals', recordId)).toHaveLength(6);
    expect(zoho.tokensIssued).toBe(2);
  });

  it('a refused refresh token fails both, and Zoho is asked once', async () => {
    const zoho = replicas[0].zoho!;
    zoho.revokeRefreshToken();
    const asked = zoho.tokenRequests.length;
    const recordId = zoho.addRecord('Deals');
    const first = await upload(crms[0], recordId, 1).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(OutboundError);
    expect(first).toMatchObject({ failure: 'unauthorized', transient: false });
    expect((first as OutboundError).message).toContain('invalid_code');
    expect(zoho.tokenRequests.length).toBe(asked + 1);

    const second = await upload(crms[1], recordId, 2).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(OutboundError);
    expect(second).toMatchObject({ failure: 'unauthorized', excerpt: (first as OutboundError).excerpt });
    expect(await crms[1].accessProblem()).toContain('invalid_code');
    expect(zoho.tokenRequests.length).toBe(asked + 1);
    expect(zoho.attachmentsOf('Deals', recordId)).toHaveLength(0);

    const redis = new Redis(`${REDIS_BASE}/${REDIS_DB}`);
    try {
      const keys = await redis.keys(`${replicas[0].config.queuePrefix}:zoho:*`);
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) for (const secret of [zoho.refreshToken, zoho.clientSecret]) expect(key).not.toContain(secret);
    } finally {
      redis.disconnect();
    }
  });
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('with Redis unreachable', () => {
  const service = new ServiceSim();
  const zoho = new ZohoSim();
  let shared: SharedRedisService;
  let clients: { service: ServiceApiClient; zoho: ZohoClient };
  const warnings: string[] = [];

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
    await Promise.all([service.start(), zoho.start()]);
    const config = loadConfig({
      ...baseEnv(service, 'postgres://unused@127.0.0.1/x', REDIS_DB),
      REDIS_URL: `redis://127.0.0.1:${await closedPort()}`,
      SERVICE_API_MAX_RPS: String(MAX_RPS),
      ...zoho.daemonEnv(),
    });
    fastRetries(config);
    shared = new SharedRedisService(config);
    const connections = environmentConnections(config);
    clients = {
      service: new ServiceApiClient(config, connections, new MetricsService(), shared),
      zoho: new ZohoClient(config, connections, new MetricsService(), shared, { notify: () => undefined }, new ZohoUsage(config, new MetricsService(), shared)),
    };
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    shared.onApplicationShutdown();
    await Promise.all([service.stop(), zoho.stop()]);
  });

  it('the service is called under a cap of this process, said once', async () => {
    const started = Date.now();
    await Promise.all(Array.from({ length: 6 }, () => clients.service.listProjects()));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(service.maxApiRequestsInWindow(1_000)).toBeLessThanOrEqual(MAX_RPS);
    const said = warnings.filter((message) => message.includes('rate cap'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('per replica');
  });

  it('Zoho is called with a token of this process', async () => {
    const recordId = zoho.addRecord('Deals');
    await expect(clients.zoho.listNotes({ module: 'Deals', recordId })).resolves.toEqual([]);
    expect(zoho.tokensIssued).toBe(1);
  });
});
