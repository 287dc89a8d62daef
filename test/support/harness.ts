import type { LoggerService } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { createApp } from '../../src/app/create-app.js';
import { loadConfig, type AppConfig } from '../../src/config/app-config.js';
import { DatabaseService } from '../../src/database/database.service.js';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { RelaySignalService } from '../../src/queues/relay-signal.service.js';
import { AppointmentCrmSim } from '../sim/appointment-crm/appointment-crm-sim.js';
import { ServiceSim } from '../sim/service/service-sim.js';
import { ZohoSim } from '../sim/zoho/zoho-sim.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const EVENTS_SECRET = 'whsec-events-test';
export const APPOINTMENT_PROMPT_SECRET = 'whsec-appointment-prompt-test';
export const RECORD_PROMPT_SECRET = 'whsec-record-prompt-test';

/** The key of the console's secrets in tests (64 hex digits); a test of a wrong key uses another. */
export const TEST_CONNECTIONS_KEY = '0123456789abcdef'.repeat(4);

export const PG_BASE = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
export const REDIS_BASE = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

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

export function uniqueDatabaseUrl(): string {
  return `${PG_BASE}/crm_sync_test_${process.pid}_${randomBytes(4).toString('hex')}`;
}

export function baseEnv(service: ServiceSim, databaseUrl: string, redisDb: number): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    REDIS_URL: `${REDIS_BASE}/${redisDb}`,
    SERVICE_API_BASE_URL: service.apiBaseUrl,
    SERVICE_API_TOKEN: service.token,
    SERVICE_API_MAX_RPS: '1000',
    WEBHOOK_SECRETS_EVENTS: EVENTS_SECRET,
    WEBHOOK_SECRETS_APPOINTMENT_PROMPT: APPOINTMENT_PROMPT_SECRET,
    WEBHOOK_SECRETS_RECORD_PROMPT: RECORD_PROMPT_SECRET,
    ADMIN_TOKEN,
    CONNECTIONS_KEY: TEST_CONNECTIONS_KEY,
    RECONCILE_INTERVAL_SECONDS: '0',
    QUEUE_PREFIX: `crm-sync-test-${randomBytes(4).toString('hex')}`,
    DRAWINGS_COALESCE_MS: '300',
    HTTP_TIMEOUT_MS: '3000',
    // The simulators serve their PDFs from 127.0.0.1 over plain http, which downloads refuse by default.
    DOWNLOADS_ALLOW_PRIVATE_ADDRESSES: 'true',
    LOG_LEVEL: 'silent',
    // The simulators listen on 127.0.0.1, not on Zoho's hosts; the tests of the domain rule set it to false.
    RECORD_CRM_ALLOW_CUSTOM_DOMAINS: 'true',
  };
}

/** Fast retries so that tests of backoff take milliseconds, not minutes. */
export function fastRetries(config: AppConfig): void {
  config.http.retry = { attempts: 3, baseDelayMs: 20, maxDelayMs: 100, maxInlineRetryAfterMs: 3_000 };
  config.jobs.backoffBaseMs = 50;
  config.jobs.attempts = 4;
}

export async function flushRedisDb(redisDb: number): Promise<void> {
  const redis = new Redis(`${REDIS_BASE}/${redisDb}`, { maxRetriesPerRequest: 1 });
  await redis.flushdb();
  redis.disconnect();
}

/** Removes every key of a queue prefix (a harness's, at its close). */
export async function removeQueueKeys(redisDb: number, prefix: string): Promise<void> {
  const redis = new Redis(`${REDIS_BASE}/${redisDb}`, { maxRetriesPerRequest: 1 });
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
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
    env.APPOINTMENT_CRM_BASE_URL = appointmentCrm.url;
    env.APPOINTMENT_CRM_API_KEY = appointmentCrm.apiKey;
  }
  if (options.recordCrm) {
    zoho = new ZohoSim();
    await zoho.start();
    env.RECORD_CRM_ACCOUNTS_URL = zoho.accountsUrl;
    env.RECORD_CRM_API_DOMAIN = zoho.apiDomain;
    env.RECORD_CRM_CLIENT_ID = 'zoho-client';
    env.RECORD_CRM_CLIENT_SECRET = 'zoho-secret';
    env.RECORD_CRM_REFRESH_TOKEN = 'zoho-refresh';
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
 * Puts a finished entry back as if its run had been interrupted before its outcome was written (a crash after the
 * CRM stored the push): queued again under a job of its own, which the relay enqueues.
 */
export async function runEntryAgain(h: Harness, entryId: string): Promise<void> {
  await h.database.query(`UPDATE sync_log SET status = 'queued', finished_at = NULL, enqueued_at = NULL, retry_base = attempts WHERE id = $1`, [entryId]);
  h.app.get(RelaySignalService).workWritten();
}
