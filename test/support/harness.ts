import type { LoggerService } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../src/app/create-app.js';
import { loadConfig, type AppConfig } from '../../src/config/app-config.js';
import { DatabaseService } from '../../src/database/database.service.js';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { RelaySignalService } from '../../src/queues/relay-signal.service.js';
import { AppointmentCrmSim } from '../../sim/appointment-crm/appointment-crm-sim.js';
import { ServiceSim } from '../../sim/service/service-sim.js';
import { ZohoSim } from '../../sim/zoho/zoho-sim.js';
import { ADMIN_TOKEN, baseEnv, removeQueueKeys, uniqueDatabaseUrl } from '../../sim/daemon-env.js';

export {
  ADMIN_TOKEN,
  APPOINTMENT_PROMPT_SECRET,
  EVENTS_SECRET,
  PG_BASE,
  RECORD_PROMPT_SECRET,
  REDIS_BASE,
  TEST_CONNECTIONS_KEY,
  baseEnv,
  removeQueueKeys,
  uniqueDatabaseUrl,
} from '../../sim/daemon-env.js';

export interface HarnessOptions {
  /**
   * The Redis db index of this test file (16 indexes, more files: some share one). What keeps them apart is the queue
   * prefix each harness gets of its own, under which every key of the daemon lives, so two harnesses never see each
   * other's jobs or state even on one db; its keys are removed on close.
   */
  redisDb: number;
  appointmentCrm?: boolean;
  recordCrm?: boolean;
  env?: Record<string, string>;
  /** Adjust the loaded config (fast backoffs for tests and the like). */
  tune?: (config: AppConfig) => void;
  /** Wait for the schema before returning (default true). */
  waitForDatabase?: boolean;
  /** Join another harness's database, as a second replica (this harness does not drop it). */
  databaseUrl?: string;
  /** Where the app's log lines go (none by default). */
  logger?: LoggerService;
}

export interface Harness {
  app: NestFastifyApplication;
  url: string;
  config: AppConfig;
  databaseUrl: string;
  service: ServiceSim;
  appointmentCrm?: AppointmentCrmSim;
  zoho?: ZohoSim;
  database: DatabaseService;
  /** fetch with the admin token. */
  admin(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

/** Fast retries so that tests of backoff take milliseconds, not minutes. */
export function fastRetries(config: AppConfig): void {
  config.http.retry = { attempts: 3, baseDelayMs: 20, maxDelayMs: 100, maxInlineRetryAfterMs: 3_000 };
  config.jobs.backoffBaseMs = 50;
  config.jobs.attempts = 4;
}

export async function startHarness(options: HarnessOptions): Promise<Harness> {
  const service = new ServiceSim();
  await service.start();
  const env: Record<string, string> = {};
  let appointmentCrm: AppointmentCrmSim | undefined;
  let zoho: ZohoSim | undefined;
  if (options.appointmentCrm) {
    appointmentCrm = new AppointmentCrmSim();
    await appointmentCrm.start();
    Object.assign(env, appointmentCrm.daemonEnv());
  }
  if (options.recordCrm) {
    zoho = new ZohoSim();
    await zoho.start();
    Object.assign(env, zoho.daemonEnv());
  }
  const databaseUrl = options.databaseUrl ?? uniqueDatabaseUrl();
  const config = loadConfig({ ...baseEnv(service, databaseUrl, options.redisDb), ...env, ...(options.env ?? {}) });
  fastRetries(config);
  options.tune?.(config);
  const app = await createApp(config, { logger: options.logger });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = await app.getUrl();
  const database = app.get(DatabaseService);
  if (options.waitForDatabase !== false) await database.whenReady(30_000);

  return {
    app,
    url,
    config,
    databaseUrl,
    service,
    appointmentCrm,
    zoho,
    database,
    admin: (path, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${ADMIN_TOKEN}`);
      let body = init.body;
      if (init.json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(init.json);
      }
      return fetch(`${url}${path}`, { ...init, headers, body });
    },
    close: async () => {
      await closeWithin(app, CLOSE_DEADLINE_MS);
      await removeQueueKeys(options.redisDb, config.queuePrefix);
      await Promise.all([service.stop(), appointmentCrm?.stop(), zoho?.stop()]);
      if (!options.databaseUrl) await dropDatabase(databaseUrl).catch(() => undefined);
    },
  };
}

/** As long as the daemon itself gives a shutdown (main.ts), so that a test's teardown fits in Jest's 30 s. */
const CLOSE_DEADLINE_MS = 15_000;

/**
 * Closes the app, or gives up after `deadlineMs` as the daemon's own shutdown does, saying what was still open so a
 * slow shutdown shows in the test output instead of failing the suite's teardown.
 */
async function closeWithin(app: NestFastifyApplication, deadlineMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), deadlineMs)));
  const outcome = await Promise.race([app.close().then(() => 'closed' as const), late]);
  clearTimeout(timer);
  if (outcome === 'late') console.warn(`app.close() still running after ${deadlineMs} ms; open: ${process.getActiveResourcesInfo().join(', ')}`);
}

/** A Nest logger that keeps every line (all levels), for tests that search the logs. */
export class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];
  log = (...parts: unknown[]) => this.keep(parts);
  error = (...parts: unknown[]) => this.keep(parts);
  warn = (...parts: unknown[]) => this.keep(parts);
  debug = (...parts: unknown[]) => this.keep(parts);
  verbose = (...parts: unknown[]) => this.keep(parts);
  fatal = (...parts: unknown[]) => this.keep(parts);

  private keep(parts: unknown[]): void {
    this.lines.push(parts.map((p) => (p instanceof Error ? `${p.message} ${p.stack}` : typeof p === 'string' ? p : JSON.stringify(p))).join(' '));
  }
}

/** Polls `check` until it returns a truthy value; fails with the last value after `timeoutMs`. */
export async function waitFor<T>(check: () => Promise<T> | T, timeoutMs = 10_000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await check();
    if (last) return last as NonNullable<T>;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)}`);
}

/**
 * Passes the webhook dedupe window (`WEBHOOK_DEDUPE_WINDOW_SECONDS`) without waiting it out: every stored delivery's
 * receipt is moved back by the window, so an equal body delivered next is new, not a re-delivery (the dedupe compares
 * the receipt with Postgres's clock).
 */
export async function dedupeWindowPassed(h: Harness): Promise<void> {
  await h.database.query(`UPDATE webhook_inbox SET received_at = received_at - make_interval(secs => $1)`, [h.config.webhooks.dedupeWindowSeconds + 1]);
}

/**
 * Moves the times an entry's runs noted for the writes they sent (`…SentAt` in its payload, the write fence) back by
 * `ms`, as if those writes had been sent that much earlier: a later run then finds them landed and looks at once,
 * rather than waiting twice their time-out. For a test of what that run finds, not of the fence's wait (which has
 * tests of its own), so that it does not wait the fence out.
 */
export async function writesSentEarlier(h: Harness, entryId: string, ms = 3_600_000): Promise<void> {
  await h.database.query(
    `UPDATE sync_log SET payload = payload || COALESCE(
       (SELECT jsonb_object_agg(key, to_jsonb((value #>> '{}')::bigint - $2)) FROM jsonb_each(payload) WHERE key LIKE '%SentAt'), '{}'::jsonb)
     WHERE id = $1`,
    [entryId, ms],
  );
}

/**
 * Puts a finished entry back as if its run had been interrupted before its outcome was written (a crash after the
 * CRM stored the push): queued again under a job of its own, which the relay enqueues.
 */
export async function runEntryAgain(h: Harness, entryId: string): Promise<void> {
  await h.database.query(`UPDATE sync_log SET status = 'queued', finished_at = NULL, enqueued_at = NULL, retry_base = attempts WHERE id = $1`, [entryId]);
  h.app.get(RelaySignalService).workWritten();
}
