import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../config/app-config.js';
import type { SalesforceAppointmentCrmConnection } from '../../../config/connection-settings.js';
import { MetricsService } from '../../../observability/metrics.service.js';
import { OutboundError } from '../../../http/outbound-error.js';
import { SalesforceApi, type ApiUsage } from './salesforce-api.js';
import { SalesforceAppointmentCrm } from './salesforce-appointment-crm.js';
import { DEFAULT_SOLD_VALUE, namesOf, SALESFORCE_PRESETS, type SalesforcePreset, type SchemaNames } from './salesforce-schema.js';
import { checkSchema, describeProblems, describeTurnedOff, type SchemaReport } from './schema-check.js';
import { soqlId } from './soql.js';

/** Who a consent reaches: the org and the user, as the card shows them. */
export interface SalesforceIdentity {
  orgId: string;
  orgName: string | null;
  userId: string;
  username: string | null;
}

export const describeIdentity = (who: SalesforceIdentity): string =>
  `${who.orgName ?? 'Salesforce org'} (org ${who.orgId}), connected as ${who.username ?? who.userId}`;

/** Error codes of an org or user without API access (REST API Developer Guide, "Status Codes and Error Responses"). */
const NO_API_ACCESS = new Set(['API_DISABLED_FOR_ORG', 'API_CURRENTLY_DISABLED', 'INSUFFICIENT_ACCESS', 'FUNCTIONALITY_NOT_ENABLED']);

export const presetOf = (connection: SalesforceAppointmentCrmConnection): SalesforcePreset =>
  (SALESFORCE_PRESETS as readonly string[]).includes(connection.preset) ? (connection.preset as SalesforcePreset) : 'improveit360-classic';

/**
 * The Salesforce orgs crm-sync talks to: one API client and adapter per connection in effect (a changed connection
 * gets new ones, so a new token or new names take effect at once), the check of a connection (who it reaches, whether
 * it has API access, whether every name exists), and the org's request usage.
 */
@Injectable()
export class SalesforceOrgsService {
  private current: { connection: SalesforceAppointmentCrmConnection; adapter: SalesforceAppointmentCrm } | null = null;
  /** The last table of needs of the connection in effect (a settings object per revision: a change reads again). */
  private kept: { connection: SalesforceAppointmentCrmConnection; report: Promise<SchemaReport> } | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  adapterFor(connection: SalesforceAppointmentCrmConnection): SalesforceAppointmentCrm {
    if (this.current?.connection !== connection) this.current = { connection, adapter: this.build(connection) };
    return this.current.adapter;
  }

  /** The org's daily request usage as the last answer said it, or null before the first call. */
  usage(): ApiUsage | null {
    return this.current?.adapter.api.usage ?? null;
  }

  /** A client for settings not in use yet (a check before saving): tried once. */
  build(connection: SalesforceAppointmentCrmConnection, attempts?: number): SalesforceAppointmentCrm {
    const http = this.config.http;
    const api = new SalesforceApi(
      { loginUrl: connection.loginUrl, clientId: connection.clientId, clientSecret: connection.clientSecret, refreshToken: connection.refreshToken },
      {
        timeoutMs: http.timeoutMs,
        uploadTimeoutMs: http.uploadTimeoutMs,
        maxJsonBytes: http.maxJsonBytes,
        retry: attempts ? { ...http.retry, attempts } : http.retry,
        allowCustomDomains: this.config.salesforce.allowCustomDomains,
        metrics: this.metrics,
      },
    );
    return new SalesforceAppointmentCrm(api, { names: namesOf(presetOf(connection), connection.names), soldValue: connection.soldValue || DEFAULT_SOLD_VALUE });
  }

  namesOf(connection: SalesforceAppointmentCrmConnection): SchemaNames {
    return namesOf(presetOf(connection), connection.names);
  }

  /** Who the connection reaches; an org or user without API access is refused with the reason. */
  async identity(adapter: SalesforceAppointmentCrm): Promise<SalesforceIdentity> {
    const session = await adapter.api.session();
    // The identity URL ends in /id/<org id>/<user id> (OAuth token answer, `id`).
    const [orgId, userId] = (session.identityUrl ?? '').split('/').slice(-2);
    try {
      const [org] = await adapter.api.query<Record<string, unknown>>('SOQL organization', 'SELECT Id, Name FROM Organization');
      const [user] = userId ? await adapter.api.query<Record<string, unknown>>('SOQL user', `SELECT Id, Username FROM User WHERE Id = ${soqlId(userId)}`) : [];
      return {
        orgId: String(org?.Id ?? orgId ?? ''),
        orgName: typeof org?.Name === 'string' ? org.Name : null,
        userId: String(user?.Id ?? userId ?? ''),
        username: typeof user?.Username === 'string' ? user.Username : null,
      };
    } catch (err) {
      if (
        err instanceof OutboundError &&
        (err.status === 403 || err.failure === 'unauthorized') &&
        [...NO_API_ACCESS].some((code) => err.excerpt.includes(code))
      )
        throw new OutboundError(
          'appointment_crm',
          err.endpoint,
          'unauthorized',
          403,
          `this consent has no API access (${err.excerpt.slice(0, 120)}): the user needs the "API Enabled" permission`,
        );
      throw err;
    }
  }

  /** Keeps a reading for the connection; one that fails is not kept, so the next ask reads again. */
  private keep(connection: SalesforceAppointmentCrmConnection, report: Promise<SchemaReport>): void {
    const entry = { connection, report };
    this.kept = entry;
    report.catch(() => {
      if (this.kept === entry) this.kept = null;
    });
  }

  /** Every name against the org's describe. */
  schema(adapter: SalesforceAppointmentCrm, connection: SalesforceAppointmentCrmConnection): Promise<SchemaReport> {
    return checkSchema(adapter.api, adapter.schema.names, adapter.schema.soldValue, connection.pushes, presetOf(connection));
  }

  /**
   * The connection's table of needs as last read (by a check, or by this on the first ask), without asking the org:
   * each reading costs its daily API allowance several describe calls. A check reads it anew.
   */
  keptSchema(connection: SalesforceAppointmentCrmConnection): Promise<SchemaReport> {
    if (this.kept?.connection === connection) return this.kept.report;
    const report = this.schema(this.adapterFor(connection), connection);
    this.keep(connection, report);
    return report;
  }

  /** The check of a connection: who, API access, every name. `ok` false names what is wrong. */
  async check(connection: SalesforceAppointmentCrmConnection, attempts = 1): Promise<{ ok: boolean; detail: string; report: SchemaReport | null }> {
    const adapter = this.build(connection, attempts);
    const who = await this.identity(adapter);
    const report = await this.schema(adapter, connection);
    this.keep(connection, Promise.resolve(report));
    const problems = describeProblems(report);
    const off = describeTurnedOff(report);
    const detail = [describeIdentity(who), problems ? `missing or wrong in the org: ${problems}` : '', off ? `not in this org (turned off): ${off}` : '']
      .filter(Boolean)
      .join('; ');
    return { ok: report.ok, detail, report };
  }
}
