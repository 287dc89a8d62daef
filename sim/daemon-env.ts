import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import type { ServiceSim } from './service/service-sim.js';

/**
 * The daemon's environment around the simulators, shared by the e2e harness, the benchmarks and the demo: a database
 * of its own on the local Postgres, a Redis db index, the webhook secrets the simulators sign with, and the Redis
 * helpers that clear what a run leaves.
 */

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const EVENTS_SECRET = 'whsec-events-test';
export const APPOINTMENT_PROMPT_SECRET = 'whsec-appointment-prompt-test';
export const RECORD_PROMPT_SECRET = 'whsec-record-prompt-test';

/** The key of the console's secrets in tests (64 hex digits); a test of a wrong key uses another. */
export const TEST_CONNECTIONS_KEY = '0123456789abcdef'.repeat(4);

export const PG_BASE = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
export const REDIS_BASE = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export function uniqueDatabaseUrl(): string {
  return `${PG_BASE}/crm_sync_test_${process.pid}_${randomBytes(4).toString('hex')}`;
}

export function baseEnv(service: ServiceSim, databaseUrl: string, redisDb: number): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    REDIS_URL: `${REDIS_BASE}/${redisDb}`,
    ...service.daemonEnv(),
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

/**
 * Removes every key of a queue prefix (a harness's at its close; a test's "Redis lost its data"), in one step as a
 * `FLUSHALL` would. A SCAN and DEL in rounds would let the daemon act between two rounds: its Redis-loss watcher
 * finds its marker gone in an early round and puts the jobs back, a later round deletes them again, and the marker it
 * set survives, so the loss is never noticed again (redis-loss.e2e-spec failed so whenever the db held enough keys of
 * other runs for SCAN to need several rounds). A script runs alone on the server: nothing interleaves.
 */
export async function removeQueueKeys(redisDb: number, prefix: string): Promise<number> {
  const redis = new Redis(`${REDIS_BASE}/${redisDb}`, { maxRetriesPerRequest: 1 });
  try {
    return (await redis.eval(REMOVE_KEYS_SCRIPT, 0, `${escapeGlob(prefix)}:*`)) as number;
  } finally {
    redis.disconnect();
  }
}

/** KEYS and DEL (in slices: Lua's unpack takes a bounded number of values) within one script, so atomically. */
const REMOVE_KEYS_SCRIPT = `
local keys = redis.call('KEYS', ARGV[1])
for i = 1, #keys, 5000 do
  redis.call('DEL', unpack(keys, i, math.min(i + 4999, #keys)))
end
return #keys
`;

/** A prefix taken literally in a Redis glob pattern. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
