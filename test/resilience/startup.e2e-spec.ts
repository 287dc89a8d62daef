import { execSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { DAEMON_ENTRY, startDaemon, type Daemon } from '../../bench/support.js';
import { ServiceSim } from '../../sim/service/service-sim.js';
import { ADMIN_TOKEN, baseEnv, EVENTS_SECRET, uniqueDatabaseUrl, waitFor } from '../support/harness.js';

/** A start of the daemon (up to startDaemon's 90 s on a loaded machine) and the checks after it. */
const DAEMON_TEST_MS = 120_000;

/** The built daemon as an operator runs it: `node dist/main.js` with its environment. */
describe('start-up of the built daemon', () => {
  const service = new ServiceSim();
  const databaseUrl = uniqueDatabaseUrl();
  const daemons: Daemon[] = [];

  beforeAll(async () => {
    if (!existsSync(DAEMON_ENTRY)) execSync('npm run build', { stdio: 'ignore' });
    await service.start();
  }, 60_000);

  afterAll(async () => {
    await Promise.all(daemons.map((d) => d.stop()));
    await service.stop();
    await dropDatabase(databaseUrl);
  });

  it(
    'exits 1 with one line per bad variable, printing no secret',
    () => {
      const env = { ...baseEnv(service, databaseUrl, 5), SERVICE_API_TOKEN: '', CONNECTIONS_KEY: 'not-a-key-but-secret-material' };
      const run = spawnSync(process.execPath, [DAEMON_ENTRY], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: DAEMON_TEST_MS - 10_000 });
      expect(run.status).toBe(1);
      expect(run.stderr.trim().split('\n')).toEqual([
        'config error: SERVICE_API_TOKEN is required when SERVICE_API_BASE_URL is set',
        'config error: CONNECTIONS_KEY must be 32 bytes, written as 64 hex digits or 44 base64 characters',
      ]);
      for (const secret of ['not-a-key-but-secret-material', ADMIN_TOKEN, EVENTS_SECRET]) expect(run.stderr + run.stdout).not.toContain(secret);
    },
    DAEMON_TEST_MS,
  );

  it(
    'creates its database, migrates, logs its start line and is ready',
    async () => {
      const daemon = await startDaemon({ ...baseEnv(service, databaseUrl, 5), LOG_LEVEL: 'info' });
      daemons.push(daemon);
      const line = daemon
        .output()
        .split('\n')
        .find((l) => l.includes('listening'));
      expect(JSON.parse(line!)).toMatchObject({ port: expect.any(Number), crms: [], msg: expect.stringContaining('CRMs enabled: none') });
      expect(daemon.output()).not.toContain(service.token);
      const ready = await fetch(`${daemon.url}/health/ready`);
      expect(ready.status).toBe(200);
    },
    DAEMON_TEST_MS,
  );

  it.each([
    ['Redis', { REDIS_URL: 'redis://127.0.0.1:1/0' }, 'redis'],
    ['Postgres', { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/crm_sync' }, 'postgres'],
  ])(
    'keeps running with %s unreachable and answers readiness 503 naming it',
    async (_name, change, down) => {
      const daemon = await startDaemon({ ...baseEnv(service, databaseUrl, 5), ...change }, { until: 'live' });
      try {
        // The other dependency may still be connecting; wait until only the unreachable one is reported down.
        const body = await waitFor(
          async () => {
            const res = await fetch(`${daemon.url}/health/ready`);
            expect(res.status).toBe(503);
            const answer = (await res.json()) as { error: Record<string, { status: string }> };
            return Object.keys(answer.error).length === 1 ? answer : null;
          },
          15_000,
          'readiness to name only the unreachable dependency',
        );
        expect(Object.keys(body.error)).toEqual([down]);
        expect(body.error[down].status).toBe('down');
        await new Promise((r) => setTimeout(r, 1_000));
        expect(daemon.process.exitCode).toBeNull();
        expect((await fetch(`${daemon.url}/health`)).status).toBe(200);
      } finally {
        await daemon.stop('SIGKILL'); // a graceful stop would wait for the unreachable dependency until its deadline
      }
    },
    DAEMON_TEST_MS,
  );
});
