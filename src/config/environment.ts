import { plainToInstance, Transform } from 'class-transformer';
import { isIP } from 'node:net';
import { adminTokensProblems } from './roles.js';
import { parseConnectionsKey } from './connections-key.js';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, MinLength, validateSync, type ValidationError } from 'class-validator';

const httpUrl = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };
const dbUrl = { require_tld: false, require_protocol: true, protocols: ['postgres', 'postgresql'] };
const redisUrl = { require_tld: false, require_protocol: true, protocols: ['redis', 'rediss'] };

/** Blank values count as unset, so `FOO=` in a compose file falls back to the default. */
const blankAsUnset = Transform(({ value }) => (typeof value === 'string' && value.trim() === '' ? undefined : value));
/** `true` or `false` (any case); anything else is left as written so the check names it. */
const toBoolean = Transform(({ value }) => {
  if (value === undefined || (typeof value === 'string' && value.trim() === '')) return undefined;
  const text = String(value).trim().toLowerCase();
  return text === 'true' ? true : text === 'false' ? false : value;
});
const toInt = Transform(({ value }) => {
  if (value === undefined || (typeof value === 'string' && value.trim() === '')) return undefined;
  return /^-?\d+$/.test(String(value).trim()) ? Number(value) : value;
});

/**
 * The environment as the daemon reads it (docs/configuration.md). Every variable is validated here, once, at
 * start; `loadConfig` maps it into the typed `AppConfig`.
 */
export class EnvironmentVariables {
  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1)
  @Max(65535)
  PORT?: number;

  @blankAsUnset
  @IsOptional()
  @IsUrl(dbUrl, { message: 'must be a postgres:// URL' })
  DATABASE_URL?: string;

  @blankAsUnset
  @IsOptional()
  @IsUrl(redisUrl, { message: 'must be a redis:// URL' })
  REDIS_URL?: string;

  @blankAsUnset
  @IsOptional()
  @Matches(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'must be 1 to 64 letters, digits, dots, dashes or underscores' })
  QUEUE_PREFIX?: string;

  @blankAsUnset
  @IsOptional()
  @IsUrl(httpUrl, { message: 'must be an http(s) URL, e.g. https://api.example.com/v1' })
  SERVICE_API_BASE_URL?: string;

  @blankAsUnset
  @IsOptional()
  @IsString()
  SERVICE_API_TOKEN?: string;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  @Max(10000)
  SERVICE_API_MAX_RPS?: number;

  @blankAsUnset
  @IsOptional()
  @IsString()
  WEBHOOK_SECRETS_EVENTS?: string;

  @blankAsUnset
  @IsOptional()
  @IsString()
  WEBHOOK_SECRETS_APPOINTMENT_PROMPT?: string;

  @blankAsUnset
  @IsOptional()
  @IsString()
  WEBHOOK_SECRETS_RECORD_PROMPT?: string;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  WEBHOOK_TOLERANCE_SECONDS?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be 0 or more' })
  WEBHOOK_DEDUPE_WINDOW_SECONDS?: number;

  /** Unset: the daemon makes one on its first start, prints it once and keeps only its hash (admin/first-start). */
  @blankAsUnset
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'must be at least 16 characters' })
  ADMIN_TOKEN?: string;

  /** Named tokens `name:role:token`, comma-separated; parsed and checked by `parseAdminTokens` (roles.ts). */
  @blankAsUnset
  @IsOptional()
  @IsString()
  ADMIN_TOKENS?: string;

  @blankAsUnset
  @IsOptional()
  @IsString()
  PROPOSAL_TEMPLATE_ID?: string;

  @blankAsUnset
  @IsOptional()
  @IsUrl(httpUrl, { message: 'must be an http(s) URL' })
  APPOINTMENT_CRM_BASE_URL?: string;

  @blankAsUnset
  @IsOptional()
  @IsString()
  APPOINTMENT_CRM_API_KEY?: string;

  /** `rest` (docs/appointment-crm.md) or `salesforce` (docs/appointment-crm-salesforce.md). */
  @blankAsUnset
  @IsOptional()
  @IsIn(['rest', 'salesforce'], { message: 'must be rest or salesforce' })
  APPOINTMENT_CRM_KIND?: string;

  @blankAsUnset
  @IsOptional()
  @IsUrl(httpUrl, { message: 'must be an http(s) URL, e.g. https://login.salesforce.com' })
  APPOINTMENT_CRM_LOGIN_URL?: string;

  @blankAsUnset
  @IsOptional()
  @IsString()
  APPOINTMENT_CRM_CLIENT_ID?: string;

  @blankAsUnset
  @IsOptional()
  @IsString()
  APPOINTMENT_CRM_CLIENT_SECRET?: string;

  @blankAsUnset
  @IsOptional()
  @IsString()
  APPOINTMENT_CRM_REFRESH_TOKEN?: string;

  @blankAsUnset
  @IsOptional()
  @IsIn(['improveit360-classic', 'improveit360-lightning'], { message: 'must be improveit360-classic or improveit360-lightning' })
  APPOINTMENT_CRM_PRESET?: string;

  @blankAsUnset
  @IsOptional()
  @IsIn(['service', 'crm-sync'], { message: 'must be service or crm-sync' })
  APPOINTMENT_CRM_PUSHES?: string;

  /** `true`: the Salesforce login and instance hosts may be any (simulators, a proxy); else Salesforce's own. */
  @blankAsUnset
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'must be true or false' })
  APPOINTMENT_CRM_ALLOW_CUSTOM_DOMAINS?: string;

  /** Seconds after an export-prompt yes or a drawing upload within which the service's own push must show in the org. */
  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  APPOINTMENT_CRM_PUSH_CHECK_SECONDS?: number;

  /** The share (percent) of the org's daily API requests past which the changes are read at a quarter of the pace. */
  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  @Max(100, { message: 'must be at most 100' })
  APPOINTMENT_CRM_SLOW_POLL_PERCENT?: number;

  /** The Salesforce REST API version every call names (`68.0`, or `v68.0`); docs/appointment-crm-salesforce.md. */
  @blankAsUnset
  @IsOptional()
  @Matches(/^v?\d{2,3}\.0$/, { message: 'must be a REST API version such as 68.0' })
  APPOINTMENT_CRM_API_VERSION?: string;

  /** How far behind its watermark each read of the appointment CRM's changes starts again (late commits). */
  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be at least 0' })
  @Max(3600, { message: 'must be at most 3600' })
  APPOINTMENT_CRM_POLL_LOOKBACK_SECONDS?: number;

  @blankAsUnset
  @IsOptional()
  @IsUrl(httpUrl, { message: 'must be an http(s) URL' })
  RECORD_CRM_ACCOUNTS_URL?: string;

  @blankAsUnset
  @IsOptional()
  @IsUrl(httpUrl, { message: 'must be an http(s) URL, e.g. https://www.zohoapis.com' })
  RECORD_CRM_API_DOMAIN?: string;

  /** `true`: the Zoho accounts server and API domain may be any host (simulators, a proxy); else Zoho's own or the ones set here. */
  @blankAsUnset
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'must be true or false' })
  RECORD_CRM_ALLOW_CUSTOM_DOMAINS?: string;

  @blankAsUnset
  @IsOptional()
  @IsString()
  RECORD_CRM_CLIENT_ID?: string;

  @blankAsUnset
  @IsOptional()
  @IsString()
  RECORD_CRM_CLIENT_SECRET?: string;

  @blankAsUnset
  @IsOptional()
  @IsString()
  RECORD_CRM_REFRESH_TOKEN?: string;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be 0 (off) or more' })
  RECONCILE_INTERVAL_SECONDS?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be 0 (off) or more' })
  RECONCILE_FULL_INTERVAL_SECONDS?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be 0 (off) or more' })
  REVENUE_CHECK_INTERVAL_SECONDS?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be 0 (off) or more' })
  REVENUE_CHECK_FULL_INTERVAL_SECONDS?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be 1 or more' })
  REVENUE_CHECK_CALL_BUDGET?: number;

  /** Heal by itself a drift whose last change was crm-sync's own write (docs/operations.md, "Revenue"). */
  @toBoolean
  @IsOptional()
  @IsBoolean({ message: 'must be true or false' })
  REVENUE_AUTO_HEAL?: boolean;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be 0 (off) or more' })
  AUTOMATION_POLL_SECONDS?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be 1 or more' })
  CONNECTION_CHECK_SECONDS?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be 1 or more' })
  RECORD_CRM_ACCOUNT_RECHECK_SECONDS?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  AUTOMATION_NOTIFIED_POLL_SECONDS?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  // Zoho keeps a channel at most a week; one asked longer gets an hour (Zoho's v8 notification pages).
  @Max(10_080, { message: 'must be at most 10080 (a week: Zoho gives a longer one an hour)' })
  ZOHO_NOTIFICATION_CHANNEL_MINUTES?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be 0 (off) or more' })
  ZOHO_NOTIFICATION_CHECK_SECONDS?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  ZOHO_DAILY_CALL_ALLOWANCE?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(100, { message: 'must be at least 100' })
  HTTP_TIMEOUT_MS?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1000, { message: 'must be at least 1000' })
  HTTP_UPLOAD_TIMEOUT_MS?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  PDF_MAX_BYTES?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1000, { message: 'must be at least 1000' })
  DOWNLOAD_DEADLINE_MS?: number;

  /** Plain http and loopback, private, link-local and unique-local addresses for downloads (docs/security.md). */
  @toBoolean
  @IsOptional()
  @IsBoolean({ message: 'must be true or false' })
  DOWNLOADS_ALLOW_PRIVATE_ADDRESSES?: boolean;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1024, { message: 'must be at least 1024' })
  HTTP_MAX_JSON_BYTES?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1024, { message: 'must be at least 1024' })
  MAPPING_IMPORT_MAX_BYTES?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  MAPPING_IMPORT_MAX_ROWS?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(64, { message: 'must be at least 64' })
  MAPPING_IMPORT_MAX_RECORD_BYTES?: number;

  /** Failed sign-ins (and unknown Bearer tokens) an address may make per window before it is refused (docs/security.md). */
  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  SIGN_IN_MAX_FAILURES?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  @Max(86_400, { message: 'must be at most 86400 (a day)' })
  SIGN_IN_WINDOW_SECONDS?: number;

  /** Searches (`/api/search/*`) one user may make per window (docs/security.md). */
  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  SEARCH_MAX_PER_USER?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  @Max(86_400, { message: 'must be at most 86400 (a day)' })
  SEARCH_WINDOW_SECONDS?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(0, { message: 'must be 0 or more' })
  DRAWINGS_COALESCE_MS?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(10, { message: 'must be at least 10' })
  JOB_BACKOFF_BASE_MS?: number;

  @blankAsUnset
  @IsOptional()
  @IsUrl(httpUrl, { message: 'must be an http(s) URL' })
  ALERT_WEBHOOK_URL?: string;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  ALERT_MIN_INTERVAL_SECONDS?: number;

  @blankAsUnset
  @IsOptional()
  @IsUrl(httpUrl, { message: 'must be an http(s) URL, e.g. https://sync.example.com' })
  PUBLIC_URL?: string;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  SYNC_LOG_RETENTION_DAYS?: number;

  @toInt
  @IsOptional()
  @IsInt({ message: 'must be an integer' })
  @Min(1, { message: 'must be at least 1' })
  INBOX_RETENTION_DAYS?: number;

  /** 32 bytes, base64 or hex: the key of the console's secrets. Unset: read from (or generated into) CONNECTIONS_KEY_FILE. */
  @blankAsUnset
  @IsOptional()
  @IsString()
  CONNECTIONS_KEY?: string;

  @blankAsUnset
  @IsOptional()
  @IsString()
  CONNECTIONS_KEY_FILE?: string;

  /** 32 bytes, base64 or hex: the key of the console's session cookies. Unset: a sub-key of the connections key. */
  @blankAsUnset
  @IsOptional()
  @IsString()
  SESSION_SECRET?: string;

  /** The reverse proxies whose X-Forwarded-For / -Proto are believed: addresses or CIDR ranges, comma-separated. */
  @blankAsUnset
  @IsOptional()
  @IsString()
  TRUST_PROXY?: string;

  @blankAsUnset
  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    message: 'must be one of fatal, error, warn, info, debug, trace, silent',
  })
  LOG_LEVEL?: string;
}

export interface ConfigProblem {
  variable: string;
  reason: string;
}

/** Thrown by `loadConfig`; carries one problem per bad variable and never the values themselves. */
export class ConfigError extends Error {
  constructor(readonly problems: ConfigProblem[]) {
    super(problems.map((p) => `${p.variable} ${p.reason}`).join('; '));
    this.name = 'ConfigError';
  }
}

export function validateEnvironment(env: NodeJS.ProcessEnv): EnvironmentVariables {
  const vars = plainToInstance(EnvironmentVariables, { ...env });
  const errors = validateSync(vars, { whitelist: false, forbidUnknownValues: false });
  const problems = errors.map(toProblem);
  const alreadyBad = new Set(problems.map((p) => p.variable));
  problems.push(...crossFieldProblems(vars).filter((p) => !alreadyBad.has(p.variable)));
  if (problems.length > 0) throw new ConfigError(problems);
  return vars;
}

function toProblem(error: ValidationError): ConfigProblem {
  const messages = Object.values(error.constraints ?? {});
  // class-validator lists every failed rule; the first is the most basic one (e.g. "is required" before "too short").
  const reason = error.value === undefined ? 'is required' : (messages[messages.length - 1] ?? 'is invalid');
  return { variable: error.property, reason };
}

function crossFieldProblems(vars: EnvironmentVariables): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (vars.SERVICE_API_BASE_URL && !/\/v1\/?$/.test(vars.SERVICE_API_BASE_URL)) {
    problems.push({ variable: 'SERVICE_API_BASE_URL', reason: 'must end in /v1' });
  }
  if (vars.SERVICE_API_BASE_URL && !vars.SERVICE_API_TOKEN) {
    problems.push({ variable: 'SERVICE_API_TOKEN', reason: 'is required when SERVICE_API_BASE_URL is set' });
  }
  if (vars.SERVICE_API_TOKEN && !vars.SERVICE_API_BASE_URL) {
    problems.push({ variable: 'SERVICE_API_BASE_URL', reason: 'is required when SERVICE_API_TOKEN is set' });
  }
  const prompts = [vars.WEBHOOK_SECRETS_APPOINTMENT_PROMPT, vars.WEBHOOK_SECRETS_RECORD_PROMPT].some((v) => splitSecrets(v).length > 0);
  if (splitSecrets(vars.WEBHOOK_SECRETS_EVENTS).length === 0 && (vars.WEBHOOK_SECRETS_EVENTS !== undefined || prompts)) {
    problems.push({ variable: 'WEBHOOK_SECRETS_EVENTS', reason: 'is required (comma-separated secrets) when a webhook secret is set in the environment' });
  }
  if (vars.CONNECTIONS_KEY !== undefined && parseConnectionsKey(vars.CONNECTIONS_KEY) === null) {
    problems.push({ variable: 'CONNECTIONS_KEY', reason: 'must be 32 bytes, written as 64 hex digits or 44 base64 characters' });
  }
  if (vars.SESSION_SECRET !== undefined && parseConnectionsKey(vars.SESSION_SECRET) === null) {
    problems.push({ variable: 'SESSION_SECRET', reason: 'must be 32 bytes, written as 64 hex digits or 44 base64 characters' });
  }
  if (vars.TRUST_PROXY !== undefined) {
    const bad = splitSecrets(vars.TRUST_PROXY).filter((entry) => !isAddressOrRange(entry));
    if (bad.length > 0 || splitSecrets(vars.TRUST_PROXY).length === 0)
      problems.push({ variable: 'TRUST_PROXY', reason: `must be IP addresses or CIDR ranges, comma-separated (not: ${bad.join(', ') || 'empty'})` });
  }
  if (vars.ADMIN_TOKENS !== undefined) {
    for (const reason of adminTokensProblems(vars.ADMIN_TOKENS, vars.ADMIN_TOKEN)) problems.push({ variable: 'ADMIN_TOKENS', reason });
  }
  if (vars.APPOINTMENT_CRM_KIND === 'salesforce') {
    for (const name of ['APPOINTMENT_CRM_CLIENT_ID', 'APPOINTMENT_CRM_CLIENT_SECRET', 'APPOINTMENT_CRM_REFRESH_TOKEN'] as const) {
      if (!vars[name]) problems.push({ variable: name, reason: 'is required when APPOINTMENT_CRM_KIND is salesforce' });
    }
  }
  if (vars.APPOINTMENT_CRM_BASE_URL && !vars.APPOINTMENT_CRM_API_KEY) {
    problems.push({ variable: 'APPOINTMENT_CRM_API_KEY', reason: 'is required when APPOINTMENT_CRM_BASE_URL is set' });
  }
  if (vars.RECORD_CRM_API_DOMAIN) {
    for (const name of ['RECORD_CRM_CLIENT_ID', 'RECORD_CRM_CLIENT_SECRET', 'RECORD_CRM_REFRESH_TOKEN'] as const) {
      if (!vars[name]) problems.push({ variable: name, reason: 'is required when RECORD_CRM_API_DOMAIN is set' });
    }
  }
  return problems;
}

export function splitSecrets(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** An IPv4 or IPv6 address, optionally with a /prefix length that fits it. */
export function isAddressOrRange(entry: string): boolean {
  const [address, prefix, extra] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}
