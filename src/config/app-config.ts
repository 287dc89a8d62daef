import { parseAdminTokens, type AdminTokenEntry } from './roles.js';
import type { AppointmentCrmConnection, RecordCrmConnection, ServiceConnection, WebhookSecrets } from './connection-settings.js';
import type { ZohoDomainRule } from './zoho-domains.js';
import { splitSecrets, validateEnvironment } from './environment.js';

/**
 * The Salesforce REST API version every call names unless APPOINTMENT_CRM_API_VERSION says another: Winter '27's, the
 * current release (REST API Developer Guide, "Versions", resources_versions.htm; each release's version is listed in
 * the Apex Reference Guide's release notes, apex_releasenotes.htm: "Winter '27 (API version 68.0)").
 */
export const DEFAULT_SALESFORCE_API_VERSION = '68.0';
export interface RetryPolicy {
  /** Tries of one call in the client before the error goes back to the queue. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After up to this long is waited out in the client; a longer one goes back to the queue as a delay. */
  maxInlineRetryAfterMs: number;
}

export interface AppConfig {
  port: number;
  databaseUrl: string;
  redisUrl: string;
  /** Prefix of every queue key in Redis, so several deployments can share one Redis. */
  queuePrefix: string;
  logLevel: string;
  http: { timeoutMs: number; uploadTimeoutMs: number; retry: RetryPolicy; pdfMaxBytes: number; maxJsonBytes: number };
  /**
   * Downloads of URLs from payloads and answers (docs/security.md): https to public addresses only unless
   * `allowPrivateAddresses`; each must be over within `deadlineMs`, however steadily its bytes come.
   */
  downloads: { allowPrivateAddresses: boolean; deadlineMs: number };
  /** CSV imports of mappings: the body's bytes, its data rows, and one record's bytes. */
  mappingImport: { maxBytes: number; maxRows: number; maxRecordBytes: number };
  service: { maxRps: number; proposalTemplateId: string | null };
  webhooks: { toleranceSeconds: number; dedupeWindowSeconds: number };
  /**
   * The connections set in the environment (null: not set there). Each wins over the console's and is read-only
   * there; ConnectionsService merges the two, and everything that calls out asks it, never this.
   */
  environmentConnections: {
    service: ServiceConnection | null;
    appointmentCrm: AppointmentCrmConnection | null;
    recordCrm: RecordCrmConnection | null;
    webhooks: WebhookSecrets | null;
  };
  /**
   * The console's connections: secrets sealed with `key` (CONNECTIONS_KEY, else the file `keyFile`, generated on
   * first start); every replica reads changes every `refreshMs`.
   */
  connections: { key: string | null; keyFile: string; refreshMs: number; stateTtlSeconds: number; checkEveryMs: number };
  /**
   * The Salesforce appointment CRM (docs/appointment-crm-salesforce.md): whether its hosts may be other than
   * Salesforce's, how long the service's own pushes may take to show, and the share of the org's daily requests past
   * which its changes are read less often.
   */
  salesforce: { allowCustomDomains: boolean; pushCheckMs: number; slowPollShare: number; apiVersion: string };
  /** Which hosts may be Zoho's accounts server and API domain (docs/security.md "Zoho domains and sealed secrets"). */
  zohoDomains: ZohoDomainRule;
  /**
   * The relay from stored work to the queues. While deliveries arrive at `burstPerSecond` or more (measured every
   * `sampleMs`), it relays at most `burstFeedPerSecond` of them; the rest wait in Postgres until the burst ends.
   * Every `pollMs` it also looks for actions another replica recorded but could not relay.
   */
  relay: { burstPerSecond: number; burstFeedPerSecond: number; sampleMs: number; pollMs: number };
  /** `SESSION_SECRET`, the key of the console's session cookies; null: a sub-key of the connections key (src/auth/session-secret.ts). */
  sessionSecret: string | null;
  /**
   * Failed sign-ins and Bearer failures allowed per client address in a window of `windowSeconds`; then 429 until the
   * window ends (src/auth/sign-in-throttle.ts).
   */
  /** `SIGN_IN_MAX_FAILURES` failures per client address in `SIGN_IN_WINDOW_SECONDS`, then 429 (docs/security.md). */
  signIn: { maxFailures: number; windowSeconds: number };
  /** `SEARCH_MAX_PER_USER` searches per user in `SEARCH_WINDOW_SECONDS`, then 429 (docs/security.md). */
  search: { maxPerUser: number; windowSeconds: number };
  /** `TRUST_PROXY`: the proxies (addresses or CIDR ranges) whose X-Forwarded-* headers Fastify believes; empty: none. */
  trustProxy: string[];
  /** `ADMIN_TOKEN`; null: the token made on the first start (its hash in Postgres) stands in for it. */
  adminToken: string | null;
  /** Every token of the admin API from the environment: `ADMIN_TOKEN` (name `admin`, role admin) first, then `ADMIN_TOKENS`. */
  adminTokens: AdminTokenEntry[];
  jobs: {
    /** Tries of one queued action before it is `failed`. */
    attempts: number;
    backoffBaseMs: number;
    drawingsCoalesceMs: number;
    /** How long enqueued work may sit unfinished and untouched before the relay's recovery checks that its job exists. */
    staleAfterMs: number;
    sweepIntervalMs: number;
    /**
     * BullMQ's hold on a running job, the same for every worker: its lock lasts `lockDurationMs` and is renewed every
     * quarter to half of it while the process lives, and every `stalledIntervalMs` one worker moves the jobs whose lock
     * expired back to waiting. A killed replica's job so runs elsewhere within lockDurationMs + stalledIntervalMs; a
     * live one keeps it as long as its event loop never stalls for lockDurationMs / 2. A job moved back more than
     * `maxStalledCount` times is failed by BullMQ.
     */
    lockDurationMs: number;
    stalledIntervalMs: number;
    maxStalledCount: number;
  };
  /** Period of the changes pass; 0: no scheduled pass at all. */
  reconcileIntervalSeconds: number;
  /** Period of the schedule's reads of each CRM's changes for the automations; 0: only when asked. */
  automationPollSeconds: number;
  /** How long the association of automated mappings waits for more to join it (one A2 call for up to 100 appointments). */
  automationAssociateGatherMs: number;
  /** How far behind its watermark each read of the appointment CRM's changes starts (APPOINTMENT_CRM_POLL_LOOKBACK_SECONDS). */
  appointmentPollLookbackMs: number;
  /** The record CRM's reads while its Zoho notification channel is live: the safety net, not the way Deals arrive. */
  automationNotifiedPollSeconds: number;
  /** The Zoho notification channel: the lifetime asked for each time it is made or renewed, and the period of its check (0: no channel). */
  zohoNotifications: { channelMinutes: number; checkSeconds: number };
  /** Period of the scheduled full pass; 0: none (a changes pass may still be scheduled). */
  reconcileFullIntervalSeconds: number;
  /**
   * The revenue check (docs/operations.md, "Revenue that stays right"): the changes pass's and the full pass's periods
   * (0: not scheduled), the CRM calls one pass may make of each CRM, and auto-heal (only where crm-sync's own write
   * was the last change).
   */
  revenue: { checkIntervalSeconds: number; fullIntervalSeconds: number; callBudget: number; autoHeal: boolean };
  /** `ZOHO_DAILY_CALL_ALLOWANCE`: the Zoho org's API calls a day, shown beside the day's count (docs/zoho-crm.md "Credits"). */
  zohoDailyCallAllowance: number;
  /**
   * How old a reading of the Zoho organization and user (`/org`, `/users`) may be before readiness or the scheduled
   * connection check reads them again, shared by every replica (docs/zoho-crm.md "Credits").
   */
  recordCrmAccountRecheckMs: number;
  /** The daemon's own address (`PUBLIC_URL`), without a trailing slash; null when unset. */
  publicUrl: string | null;
  /**
   * Alert messages: POSTed to `webhookUrl` (null: recorded only), at most one per kind per `minIntervalSeconds`
   * across replicas; one POST waits at most `timeoutMs`; each replica looks for pending alerts another replica left
   * every `pendingSweepMs` (at least the interval; the tests shorten it).
   */
  alerts: { webhookUrl: string | null; minIntervalSeconds: number; timeoutMs: number; pendingSweepMs: number };
  /** Finished rows older than these are deleted by the daily maintenance task, `batchSize` rows per statement. */
  retention: { syncLogDays: number; inboxDays: number; batchSize: number; everyMs: number };
}

/**
 * The service retries a delivery 15 s, 30 s, 3 min, 10 min, 20 min and 30 min after each failure (3,825 s of
 * waiting), and each of the six failed attempts before the last may itself have waited out its 30 s time-out
 * (180 s): the last attempt can so arrive 4,005 s after the first. 4,200 s covers that with a margin for the
 * sender's queueing and clock.
 */
const DEDUPE_WINDOW_SECONDS = 4_200;

/** The single injection token of the configuration. */
export const APP_CONFIG = Symbol('APP_CONFIG');

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const v = validateEnvironment(env);
  return {
    port: v.PORT ?? 3000,
    databaseUrl: v.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/crm_sync',
    redisUrl: v.REDIS_URL ?? 'redis://127.0.0.1:6379',
    queuePrefix: v.QUEUE_PREFIX ?? 'crm-sync',
    logLevel: v.LOG_LEVEL ?? 'info',
    http: {
      timeoutMs: v.HTTP_TIMEOUT_MS ?? 30_000,
      uploadTimeoutMs: v.HTTP_UPLOAD_TIMEOUT_MS ?? 600_000,
      retry: { attempts: 4, baseDelayMs: 500, maxDelayMs: 8_000, maxInlineRetryAfterMs: 30_000 },
      pdfMaxBytes: v.PDF_MAX_BYTES ?? 100 * 1024 * 1024,
      maxJsonBytes: v.HTTP_MAX_JSON_BYTES ?? 10 * 1024 * 1024,
    },
    // 5 minutes takes the largest PDF allowed by default (100 MB) at about 350 KB/s.
    downloads: { allowPrivateAddresses: v.DOWNLOADS_ALLOW_PRIVATE_ADDRESSES ?? false, deadlineMs: v.DOWNLOAD_DEADLINE_MS ?? 300_000 },
    mappingImport: {
      maxBytes: v.MAPPING_IMPORT_MAX_BYTES ?? 20 * 1024 * 1024,
      maxRows: v.MAPPING_IMPORT_MAX_ROWS ?? 100_000,
      maxRecordBytes: v.MAPPING_IMPORT_MAX_RECORD_BYTES ?? 4096,
    },
    service: { maxRps: v.SERVICE_API_MAX_RPS ?? 10, proposalTemplateId: v.PROPOSAL_TEMPLATE_ID ?? null },
    webhooks: { toleranceSeconds: v.WEBHOOK_TOLERANCE_SECONDS ?? 300, dedupeWindowSeconds: v.WEBHOOK_DEDUPE_WINDOW_SECONDS ?? DEDUPE_WINDOW_SECONDS },
    environmentConnections: {
      service: v.SERVICE_API_BASE_URL ? { baseUrl: v.SERVICE_API_BASE_URL.replace(/\/+$/, ''), token: v.SERVICE_API_TOKEN! } : null,
      appointmentCrm:
        v.APPOINTMENT_CRM_KIND === 'salesforce'
          ? {
              kind: 'salesforce',
              loginUrl: (v.APPOINTMENT_CRM_LOGIN_URL ?? 'https://login.salesforce.com').replace(/\/+$/, ''),
              clientId: v.APPOINTMENT_CRM_CLIENT_ID!,
              clientSecret: v.APPOINTMENT_CRM_CLIENT_SECRET!,
              refreshToken: v.APPOINTMENT_CRM_REFRESH_TOKEN!,
              instanceUrl: null,
              preset: v.APPOINTMENT_CRM_PRESET ?? 'improveit360-classic',
              names: {},
              soldValue: 'Sold',
              pushes: v.APPOINTMENT_CRM_PUSHES === 'crm-sync' ? 'crm-sync' : 'service',
            }
          : v.APPOINTMENT_CRM_BASE_URL
            ? { baseUrl: v.APPOINTMENT_CRM_BASE_URL.replace(/\/+$/, ''), apiKey: v.APPOINTMENT_CRM_API_KEY! }
            : null,
      recordCrm: v.RECORD_CRM_API_DOMAIN
        ? {
            accountsUrl: (v.RECORD_CRM_ACCOUNTS_URL ?? 'https://accounts.zoho.com').replace(/\/+$/, ''),
            apiDomain: v.RECORD_CRM_API_DOMAIN.replace(/\/+$/, ''),
            clientId: v.RECORD_CRM_CLIENT_ID!,
            clientSecret: v.RECORD_CRM_CLIENT_SECRET!,
            refreshToken: v.RECORD_CRM_REFRESH_TOKEN!,
          }
        : null,
      webhooks:
        splitSecrets(v.WEBHOOK_SECRETS_EVENTS).length > 0
          ? {
              events: splitSecrets(v.WEBHOOK_SECRETS_EVENTS),
              appointmentPrompt: splitSecrets(v.WEBHOOK_SECRETS_APPOINTMENT_PROMPT),
              recordPrompt: splitSecrets(v.WEBHOOK_SECRETS_RECORD_PROMPT),
            }
          : null,
    },
    connections: {
      key: v.CONNECTIONS_KEY ?? null,
      keyFile: v.CONNECTIONS_KEY_FILE ?? 'data/connections.key',
      refreshMs: 2_000,
      stateTtlSeconds: 600,
      checkEveryMs: (v.CONNECTION_CHECK_SECONDS ?? 900) * 1000,
    },
    salesforce: {
      allowCustomDomains: v.APPOINTMENT_CRM_ALLOW_CUSTOM_DOMAINS === 'true',
      pushCheckMs: (v.APPOINTMENT_CRM_PUSH_CHECK_SECONDS ?? 600) * 1000,
      slowPollShare: (v.APPOINTMENT_CRM_SLOW_POLL_PERCENT ?? 80) / 100,
      apiVersion: (v.APPOINTMENT_CRM_API_VERSION ?? DEFAULT_SALESFORCE_API_VERSION).replace(/^v/, ''),
    },
    zohoDomains: {
      allowCustom: v.RECORD_CRM_ALLOW_CUSTOM_DOMAINS === 'true',
      accountsUrl: v.RECORD_CRM_ACCOUNTS_URL?.replace(/\/+$/, '') ?? null,
      apiDomain: v.RECORD_CRM_API_DOMAIN?.replace(/\/+$/, '') ?? null,
    },
    relay: { burstPerSecond: 200, burstFeedPerSecond: 10, sampleMs: 250, pollMs: 1_000 },
    sessionSecret: v.SESSION_SECRET ?? null,
    signIn: { maxFailures: v.SIGN_IN_MAX_FAILURES ?? 10, windowSeconds: v.SIGN_IN_WINDOW_SECONDS ?? 60 },
    search: { maxPerUser: v.SEARCH_MAX_PER_USER ?? 30, windowSeconds: v.SEARCH_WINDOW_SECONDS ?? 60 },
    trustProxy: splitSecrets(v.TRUST_PROXY),
    adminToken: v.ADMIN_TOKEN ?? null,
    adminTokens: [...(v.ADMIN_TOKEN ? [{ name: 'admin', role: 'admin' as const, token: v.ADMIN_TOKEN }] : []), ...parseAdminTokens(v.ADMIN_TOKENS)],
    jobs: {
      attempts: 8,
      backoffBaseMs: v.JOB_BACKOFF_BASE_MS ?? 5_000,
      drawingsCoalesceMs: v.DRAWINGS_COALESCE_MS ?? 3_000,
      staleAfterMs: 60_000,
      sweepIntervalMs: 30_000,
      // From a crash to another replica taking the job: 3 to 8 s (within 10 s, docs/guarantees.md "Recovery"); a live
      // replica keeps its job while its event loop never stalls for 3 s.
      lockDurationMs: 6_000,
      stalledIntervalMs: 2_000,
      // High on purpose: every push is idempotent, so a job cut off by crashes is run again rather than failed. An
      // action's own budget (jobs.attempts runs on its entry, the cut-off ones included) ends a crash loop, with a
      // reason; a delivery failed here would be put back by the relay's recovery anyway, and a periodic task comes again.
      maxStalledCount: 1_000,
    },
    reconcileIntervalSeconds: v.RECONCILE_INTERVAL_SECONDS ?? 900,
    reconcileFullIntervalSeconds: v.RECONCILE_FULL_INTERVAL_SECONDS ?? 86_400,
    revenue: {
      checkIntervalSeconds: v.REVENUE_CHECK_INTERVAL_SECONDS ?? 900,
      fullIntervalSeconds: v.REVENUE_CHECK_FULL_INTERVAL_SECONDS ?? 604_800,
      callBudget: v.REVENUE_CHECK_CALL_BUDGET ?? 1_000,
      autoHeal: v.REVENUE_AUTO_HEAL ?? false,
    },
    automationPollSeconds: v.AUTOMATION_POLL_SECONDS ?? 60,
    automationAssociateGatherMs: 1_000,
    appointmentPollLookbackMs: (v.APPOINTMENT_CRM_POLL_LOOKBACK_SECONDS ?? 300) * 1000,
    automationNotifiedPollSeconds: v.AUTOMATION_NOTIFIED_POLL_SECONDS ?? 900,
    zohoNotifications: { channelMinutes: v.ZOHO_NOTIFICATION_CHANNEL_MINUTES ?? 1440, checkSeconds: v.ZOHO_NOTIFICATION_CHECK_SECONDS ?? 300 },
    zohoDailyCallAllowance: v.ZOHO_DAILY_CALL_ALLOWANCE ?? 50_000,
    recordCrmAccountRecheckMs: (v.RECORD_CRM_ACCOUNT_RECHECK_SECONDS ?? 7_200) * 1000,
    publicUrl: v.PUBLIC_URL ? v.PUBLIC_URL.replace(/\/+$/, '') : null,
    alerts: { webhookUrl: v.ALERT_WEBHOOK_URL ?? null, minIntervalSeconds: v.ALERT_MIN_INTERVAL_SECONDS ?? 300, timeoutMs: 5_000, pendingSweepMs: 5_000 },
    retention: { syncLogDays: v.SYNC_LOG_RETENTION_DAYS ?? 90, inboxDays: v.INBOX_RETENTION_DAYS ?? 30, batchSize: 1_000, everyMs: 24 * 3600_000 },
  };
}
