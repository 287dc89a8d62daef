import { Inject, Injectable } from '@nestjs/common';
import { appointmentCrmHttp } from '../appointment-crm/adapters/rest/appointment-crm.client.js';
import { SalesforceOrgsService } from '../appointment-crm/adapters/salesforce/salesforce-orgs.service.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ReadinessRegistry } from '../observability/readiness.registry.js';
import { OutboundError } from '../http/outbound-error.js';
import { checkCodeOf, type CheckCode } from '../connections/check-codes.js';
import { OutboundHttp } from '../http/outbound-http.js';
import { originOf } from '../http/redact-urls.js';
import { RECORD_CRM, type RecordCrm } from '../record-crm/record-crm.js';
import { describeAccount, NO_CRM_ORGANIZATION } from '../record-crm/zoho/zoho-account.js';
import { ZohoAuth } from '../record-crm/zoho/zoho-auth.js';
import { RECONNECT_TO_GRANT } from '../record-crm/zoho/zoho-scopes.js';
import { SharedRedisService } from '../queues/shared-redis.service.js';
import { serviceHttp } from '../service-api/service-api.client.js';
import { serviceRateCap, type SharedRateCap } from '../service-api/shared-rate-cap.js';
import {
  isSalesforce,
  type SalesforceAppointmentCrmConnection,
  type AppointmentCrmConnection,
  type ConnectionName,
  RecordCrmConnection,
  ServiceConnection,
  WebhookSecrets,
} from '../config/connection-settings.js';
import { ConnectionsService } from '../connections/connections.service.js';

export interface CheckOutcome {
  ok: boolean;
  /** Why it failed (null when it passed): computed from the typed error, never from the text. */
  code: CheckCode | null;
  detail: string;
}

/** The appointment whose lookup proves the key: any answer but 401/403 (its 404 included) means the key is taken. */
const PROBE_APPOINTMENT = 'crm-sync-connection-check';

/** The code of a problem the Zoho adapter reports: a shortfall of scopes and a consent without a CRM are told apart. */
export function recordCrmProblemCode(problem: string): CheckCode {
  if (problem.startsWith(RECONNECT_TO_GRANT)) return 'scope_missing';
  return problem === NO_CRM_ORGANIZATION ? 'no_crm_org' : 'token_unavailable';
}

const failed = (err: unknown): CheckOutcome => ({
  ok: false,
  code: checkCodeOf(err),
  detail: err instanceof OutboundError ? err.message : `failed: ${(err as Error).message}`,
});

/**
 * A base URL's path may hold a tenant's secret, and a check's detail reaches operators (the Test answer) and viewers
 * (the last check): it names the base URL by its origin, even where the other side's answer echoed it whole.
 */
const withOriginOnly = (outcome: CheckOutcome, baseUrl: string): CheckOutcome => ({
  ...outcome,
  detail: outcome.detail.replaceAll(baseUrl, originOf(baseUrl)),
});

/**
 * The Test button, and the check of new settings before they are saved: one call that needs the credentials and
 * changes nothing, tried once (no retries, so a wrong address answers within the time-out).
 */
@Injectable()
export class ConnectionChecksService {
  /** A check's call to the service counts against the deployment's cap like any other. */
  private readonly serviceCap: SharedRateCap;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly connections: ConnectionsService,
    private readonly readiness: ReadinessRegistry,
    shared: SharedRedisService,
    @Inject(RECORD_CRM) private readonly recordCrmAdapter: RecordCrm,
    private readonly salesforce: SalesforceOrgsService,
  ) {
    this.serviceCap = serviceRateCap(shared, config.service.maxRps);
  }

  /**
   * Checks the connection in effect and records the outcome (the console's "last checked"). The schedule's check
   * (`scheduled`) takes Zoho's organization and user as read within the account recheck period by any replica, so
   * the checks add no Zoho call of their own; the Test button reads them anew.
   */
  async checkAndRecord(name: ConnectionName, scheduled = false): Promise<CheckOutcome> {
    const outcome = await this.checkCurrent(name, scheduled);
    await this.connections.recordCheck(name, outcome.ok, outcome.code, outcome.detail);
    return outcome;
  }

  /** R2 (proposal templates, one page): the service's cheapest call that needs the token. */
  async service(connection: ServiceConnection): Promise<CheckOutcome> {
    try {
      await serviceHttp(connection, this.config, { attempts: 1, throttle: (call) => this.serviceCap.run(call) }).request({
        endpoint: 'R2 GET /proposal_templates',
        method: 'GET',
        path: '/proposal_templates',
        params: { per_page: 1 },
      });
      return { ok: true, code: null, detail: `the service at ${originOf(connection.baseUrl)} accepted the token` };
    } catch (err) {
      return withOriginOnly(failed(err), connection.baseUrl);
    }
  }

  /** GET of an appointment that does not exist: a JSON 404 (or 200) proves address and key; 401 or 403 refuse the key. */
  async appointmentCrm(connection: AppointmentCrmConnection): Promise<CheckOutcome> {
    if (isSalesforce(connection)) return this.salesforceOrg(connection);
    try {
      await appointmentCrmHttp(connection, this.config, { attempts: 1 }).request({
        endpoint: 'GET /appointments/:id',
        method: 'GET',
        path: `/appointments/${PROBE_APPOINTMENT}`,
        acceptStatus: [404],
      });
      return { ok: true, code: null, detail: `the appointment CRM at ${originOf(connection.baseUrl)} accepted the key` };
    } catch (err) {
      return withOriginOnly(failed(err), connection.baseUrl);
    }
  }

  /** A Salesforce org: who the consent reaches, its API access, and every name against its describe. */
  async salesforceOrg(connection: SalesforceAppointmentCrmConnection): Promise<CheckOutcome> {
    try {
      const { ok, detail } = await this.salesforce.check(connection);
      return { ok, code: ok ? null : 'schema_mismatch', detail };
    } catch (err) {
      return failed(err);
    }
  }

  /** A token of the refresh-token grant, from settings not in use yet (the connection in use is checked by its client). */
  async recordCrm(connection: RecordCrmConnection): Promise<CheckOutcome> {
    const retry = { ...this.config.http.retry, attempts: 1 };
    const accounts = new OutboundHttp({ system: 'zoho_accounts', timeoutMs: this.config.http.timeoutMs, maxJsonBytes: this.config.http.maxJsonBytes, retry });
    try {
      const token = await new ZohoAuth(accounts, connection, retry, Date.now, undefined, undefined, this.config.zohoDomains).get();
      return { ok: true, code: null, detail: `Zoho issued an access token; API domain ${token.apiDomain}` };
    } catch (err) {
      return failed(err);
    }
  }

  webhooks(secrets: WebhookSecrets): CheckOutcome {
    const count = (list: string[]) => (list.length === 0 ? 'none' : list.length === 1 ? '1 secret' : `${list.length} secrets (rotation)`);
    const detail = `events: ${count(secrets.events)}; appointment prompt: ${count(secrets.appointmentPrompt)}; record prompt: ${count(secrets.recordPrompt)}`;
    if (secrets.events.length === 0) return { ok: false, code: 'no_events_secret', detail: `the events webhook has no secret; ${detail}` };
    return { ok: true, code: null, detail };
  }

  private async checkCurrent(name: ConnectionName, scheduled: boolean): Promise<CheckOutcome> {
    if (name === 'service') return this.ifConfigured(await this.connections.get('service'), (c) => this.service(c));
    if (name === 'appointment_crm') return this.ifConfigured(await this.connections.get('appointment_crm'), (c) => this.appointmentCrm(c));
    if (name === 'webhooks') return this.ifConfigured(await this.connections.get('webhooks'), (c) => Promise.resolve(this.webhooks(c)));
    return this.ifConfigured(await this.connections.get('record_crm'), async () => {
      const startedAt = Date.now();
      // Through the adapter's own token, so a Test neither uses up Zoho's token quota nor forgets a refusal.
      const check = this.readiness.entries().find(([entry]) => entry === 'record_crm')?.[1];
      const outcome = check ? await check() : { status: 'up' as const };
      if (outcome.status !== 'up') {
        const detail = outcome.message ?? outcome.status;
        return { ok: false, code: recordCrmProblemCode(detail), detail };
      }
      // Who is connected (the card names the organization and the user): on a Test, read anew but once (when the
      // readiness check above just read it, that reading is the Test's); on the schedule, the shared reading of the
      // recheck period, which the readiness check above has just renewed when it was older.
      try {
        const maxAgeMs = scheduled ? this.config.recordCrmAccountRecheckMs : Date.now() - startedAt;
        const account = await this.recordCrmAdapter.connectedAccount(maxAgeMs);
        if (!account) return { ok: false, code: 'no_crm_org', detail: NO_CRM_ORGANIZATION };
        return { ok: true, code: null, detail: describeAccount(account) };
      } catch (err) {
        // A scope Zoho refused for these reads is a shortfall to reconnect for, as the adapter now says.
        const problem = await this.recordCrmAdapter.accessProblem();
        return problem ? { ok: false, code: recordCrmProblemCode(problem), detail: problem } : failed(err);
      }
    });
  }

  private ifConfigured<T>(settings: T | null, check: (settings: T) => Promise<CheckOutcome>): Promise<CheckOutcome> {
    return settings ? check(settings) : Promise.resolve({ ok: false, code: 'not_configured', detail: 'not configured' });
  }
}
