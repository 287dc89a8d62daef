import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ReadinessRegistry } from '../observability/readiness.registry.js';
import type { CheckCode } from '../connections/check-codes.js';
import { CODECS } from '../connections/connection-codecs.js';
import type { CheckRow } from '../connections/connection-check.repository.js';
import type { ConnectionName } from '../config/connection-settings.js';
import { ConnectionsService, type ConnectionState } from '../connections/connections.service.js';
import { publicUrlOf } from '../connections/public-url.js';
import { recordCrmProblemCode } from './connection-checks.service.js';
import { CALLBACK_PATH } from './zoho-connect.service.js';
import { SALESFORCE_CALLBACK_PATH } from './salesforce-connect.service.js';
import { SalesforceOrgsService } from '../appointment-crm/adapters/salesforce/salesforce-orgs.service.js';
import type { ApiUsage } from '../appointment-crm/adapters/salesforce/salesforce-api.js';
import { dataCentreOf, ZOHO_DATA_CENTRES } from '../config/zoho-data-centres.js';

export type ConnectionStatus = 'connected' | 'degraded' | 'not_configured';

export interface ConnectionView {
  name: ConnectionName;
  source: 'environment' | 'console' | null;
  status: ConnectionStatus;
  /** Why it is degraded or not configured, as a stable code (src/connections/check-codes.ts); null when connected. */
  code: CheckCode | null;
  detail: string | null;
  checked_at: string | null;
  updated_at: string | null;
  updated_by: string | null;
  /** Set in the environment: the console shows it and may test it, not change it. */
  read_only: boolean;
  settings: Record<string, unknown> | null;
}

/** How long the console waits for the Zoho token check before it says so instead. */
const TOKEN_CHECK_WAIT_MS = 2_000;

/** Where the service must send each webhook, under the daemon's own address. */
export const webhookAddresses = (config: AppConfig) => {
  const base = publicUrlOf(config);
  return {
    events: `${base}/webhooks/events`,
    appointment_prompt: `${base}/webhooks/appointment-crm/export-prompt`,
    record_prompt: `${base}/webhooks/record-crm/export-prompt`,
  };
};

const NOT_CONFIGURED_HINT: Record<ConnectionName, string> = {
  service: "enter the service's API address and token",
  appointment_crm: "enter the appointment CRM's address and key (leave it unset if you do not use one)",
  record_crm: 'connect Zoho CRM (leave it unset if you do not use it)',
  webhooks: 'enter the secrets of the webhooks, and set the addresses shown here in the service',
};

/** The org's daily API requests as its last answer said them (`Sforce-Limit-Info`), or null before any. */
const apiUsageView = (usage: ApiUsage | null) =>
  usage ? { used: usage.used, max: usage.max, share: usage.max > 0 ? usage.used / usage.max : null, seen_at: usage.seenAt.toISOString() } : null;

/** The console's picture of the connections: state, where set, last check, settings without secrets. */
@Injectable()
export class ConnectionViewsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly connections: ConnectionsService,
    private readonly readiness: ReadinessRegistry,
    private readonly salesforce: SalesforceOrgsService,
  ) {}

  async list(): Promise<ConnectionView[]> {
    const [states, checks] = await Promise.all([this.connections.states(), this.connections.checks()]);
    return Promise.all(states.map((state) => this.view(state, checks.get(state.name))));
  }

  async one(name: ConnectionName): Promise<ConnectionView> {
    return (await this.list()).find((view) => view.name === name)!;
  }

  /** The page's fixed facts: addresses to paste elsewhere, the data centres, the key. */
  context() {
    const key = this.connections.key;
    return {
      public_url: publicUrlOf(this.config),
      public_url_set: this.config.publicUrl !== null,
      redirect_uri: `${publicUrlOf(this.config)}${CALLBACK_PATH}`,
      webhook_addresses: webhookAddresses(this.config),
      data_centres: ZOHO_DATA_CENTRES.map((dc) => ({ code: dc.code, accounts_url: dc.accountsUrl })),
      key: key.ok ? { ok: true, origin: key.origin, path: key.path, problem: null } : { ok: false, origin: null, path: key.path, problem: key.problem },
    };
  }

  private async view(state: ConnectionState, check: CheckRow | undefined): Promise<ConnectionView> {
    const { status, code, detail } = await this.statusOf(state, check);
    return {
      name: state.name,
      source: state.source,
      status,
      code,
      detail,
      checked_at: check?.checkedAt.toISOString() ?? null,
      updated_at: state.updatedAt?.toISOString() ?? null,
      updated_by: state.updatedBy,
      read_only: state.source === 'environment',
      settings: state.settings ? this.settingsView(state) : null,
    };
  }

  private settingsView(state: ConnectionState): Record<string, unknown> {
    const settings = (CODECS[state.name].view as (s: unknown) => Record<string, unknown>)(state.settings);
    if (state.name === 'webhooks') return { ...settings, addresses: webhookAddresses(this.config) };
    if (state.name === 'record_crm') return { ...settings, data_centre: dataCentreOf(String(settings.accounts_url)) };
    if (state.name === 'appointment_crm' && settings.kind === 'salesforce')
      return { ...settings, api_usage: apiUsageView(this.salesforce.usage()), redirect_uri: `${publicUrlOf(this.config)}${SALESFORCE_CALLBACK_PATH}` };
    return settings;
  }

  private async statusOf(state: ConnectionState, check: CheckRow | undefined): Promise<Pick<ConnectionView, 'status' | 'code' | 'detail'>> {
    if (state.problem) return { status: 'degraded', code: 'secrets_unreadable', detail: state.problem };
    if (!state.settings) return { status: 'not_configured', code: 'not_configured', detail: NOT_CONFIGURED_HINT[state.name] };
    // A failed check counts until the connection changes after it (a save clears it; the environment's never does).
    const checkStands = check && (!state.updatedAt || check.checkedAt >= state.updatedAt);
    if (checkStands && !check.ok) return { status: 'degraded', code: check.code ?? 'failed', detail: check.detail };
    if (state.name === 'record_crm') {
      const problem = await this.zohoTokenProblem();
      if (problem) return { status: 'degraded', code: recordCrmProblemCode(problem), detail: problem };
    }
    return { status: 'connected', code: null, detail: checkStands ? check.detail : null };
  }

  /** The Zoho adapter's own view (its token, a refused refresh token or scope), without waiting long. */
  private async zohoTokenProblem(): Promise<string | null> {
    const check = this.readiness.entries().find(([name]) => name === 'record_crm')?.[1];
    if (!check) return null;
    const outcome = await Promise.race([
      check().catch((err: unknown) => ({ status: 'degraded' as const, message: err instanceof Error ? err.message : String(err) })),
      new Promise<{ status: 'degraded'; message: string }>((resolve) =>
        setTimeout(resolve, TOKEN_CHECK_WAIT_MS, { status: 'degraded', message: 'the Zoho token check did not answer in time' }).unref(),
      ),
    ]);
    return outcome.status === 'up' ? null : (outcome.message ?? outcome.status);
  }
}
