import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DatabaseService } from '../database/database.service.js';
import type { CheckCode } from './check-codes.js';
import { CODECS } from './connection-codecs.js';
import { ConnectionCheckRepository, type CheckRow } from './connection-check.repository.js';
import { ConnectionRepository, type ConnectionRow } from './connection.repository.js';
import { CONNECTION_NAMES, isSalesforce, type ConnectionName, type ConnectionSettings } from '../config/connection-settings.js';
import { salesforceHostProblem } from '../config/salesforce-hosts.js';
import { loadConnectionsKey, type ConnectionsKey } from '../config/connections-key.js';
import { zohoDomainProblem } from '../config/zoho-domains.js';
import { SecretBox, SecretBoxError } from './secret-box.js';
import { connectionBinding, legacyConnectionBinding } from './sealed-binding.js';

/** What the environment variables of each connection are called, for the answer that says it is set there. */
export const ENVIRONMENT_VARIABLES: Record<ConnectionName, string> = {
  service: 'SERVICE_API_BASE_URL and SERVICE_API_TOKEN',
  appointment_crm: 'APPOINTMENT_CRM_BASE_URL and APPOINTMENT_CRM_API_KEY',
  record_crm: 'RECORD_CRM_API_DOMAIN and RECORD_CRM_CLIENT_ID/SECRET/REFRESH_TOKEN',
  webhooks: 'WEBHOOK_SECRETS_EVENTS (and the prompts’ WEBHOOK_SECRETS_*)',
};

/** How long a caller waits for the database before the console's connections count as unknown (an error). */
const FIRST_LOAD_WAIT_MS = 5_000;

interface ConsoleEntry {
  revision: string;
  settings: ConnectionSettings[ConnectionName] | null;
  /** Why the stored secrets cannot be used (a wrong CONNECTIONS_KEY), or null. */
  problem: string | null;
  updatedAt: Date;
  updatedBy: string | null;
}

export interface ConnectionState {
  name: ConnectionName;
  source: 'environment' | 'console' | null;
  settings: ConnectionSettings[ConnectionName] | null;
  problem: string | null;
  updatedAt: Date | null;
  updatedBy: string | null;
}

/**
 * The connections in effect: each one from the environment when set there (it wins, and is read-only in the
 * console), else from the console's `connection` row, its secrets sealed with CONNECTIONS_KEY. Every replica reads
 * the rows again every `connections.refreshMs`, so a change made on one reaches all within seconds, no restart.
 * A settings object is replaced, never changed, when its connection changes, so clients may cache per object.
 */
@Injectable()
export class ConnectionsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Connections');
  readonly key: ConnectionsKey;
  private readonly box: SecretBox | null;
  private fromConsole = new Map<ConnectionName, ConsoleEntry>();
  private firstLoad: Promise<void> | null = null;
  private refreshing: Promise<void> | null = null;
  private timer?: NodeJS.Timeout;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly database: DatabaseService,
    private readonly repository: ConnectionRepository,
    private readonly checkRows: ConnectionCheckRepository,
  ) {
    this.key = loadConnectionsKey(config.connections.key, config.connections.keyFile);
    this.box = this.key.ok ? new SecretBox(this.key.key) : null;
    if (!this.key.ok) this.logger.warn(`console connections cannot be saved: ${this.key.problem}`);
    else if (this.key.origin === 'generated')
      this.logger.warn(
        `generated the connections key at ${this.key.path}: back this file up (or set CONNECTIONS_KEY); without it the secrets saved from the console cannot be read`,
      );
    else if (this.key.origin === 'file') this.logger.log(`connections key read from ${this.key.path}`);
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), this.config.connections.refreshMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** The settings in effect for a connection, or null when it is not configured. Throws while the database is unreachable. */
  async get<N extends ConnectionName>(name: N): Promise<ConnectionSettings[N] | null> {
    const fromEnvironment = this.fromEnvironment(name);
    if (fromEnvironment) return fromEnvironment;
    await this.loaded();
    return (this.fromConsole.get(name)?.settings as ConnectionSettings[N] | undefined) ?? null;
  }

  /** Every connection's state, for the console. */
  async states(): Promise<ConnectionState[]> {
    await this.loaded();
    return CONNECTION_NAMES.map((name) => {
      const fromEnvironment = this.fromEnvironment(name);
      if (fromEnvironment) return { name, source: 'environment', settings: fromEnvironment, problem: null, updatedAt: null, updatedBy: null };
      const entry = this.fromConsole.get(name);
      if (!entry) return { name, source: null, settings: null, problem: null, updatedAt: null, updatedBy: null };
      return { name, source: 'console', settings: entry.settings, problem: entry.problem, updatedAt: entry.updatedAt, updatedBy: entry.updatedBy };
    });
  }

  checks(): Promise<Map<ConnectionName, CheckRow>> {
    return this.checkRows.all();
  }

  recordCheck(name: ConnectionName, ok: boolean, code: CheckCode | null, detail: string | null): Promise<void> {
    return this.checkRows.save(name, ok, code, detail);
  }

  /** Why the console may not change this connection (set in the environment, or no key), or null. */
  editProblem(name: ConnectionName): string | null {
    if (this.fromEnvironment(name))
      return `this connection is set in the environment (${ENVIRONMENT_VARIABLES[name]}); change it there, or unset it to manage it here`;
    if (!this.key.ok) return `secrets cannot be stored: ${this.key.problem}. Set CONNECTIONS_KEY (32 bytes, base64 or hex) or make the key file writable`;
    return null;
  }

  async save<N extends ConnectionName>(name: N, settings: ConnectionSettings[N], actor: string): Promise<void> {
    const { plain, secrets } = CODECS[name].split(settings);
    await this.repository.save(name, plain, this.seal(secrets, connectionBinding(name, plain)), actor);
    await this.refresh();
  }

  async remove(name: ConnectionName): Promise<void> {
    await this.repository.remove(name);
    await this.checkRows.delete(name);
    await this.refresh();
  }

  /** Seals a value with the connections key, bound to `associatedData` (sealed-binding.ts). */
  seal(value: unknown, associatedData: string): string {
    if (!this.box) throw new Error('no connections key');
    return this.box.seal(value, associatedData);
  }

  open<T>(sealed: string, associatedData: string): T {
    if (!this.box) throw new SecretBoxError('no connections key');
    return this.box.open<T>(sealed, associatedData);
  }

  private fromEnvironment<N extends ConnectionName>(name: N): ConnectionSettings[N] | null {
    const env = this.config.environmentConnections;
    const settings = { service: env.service, appointment_crm: env.appointmentCrm, record_crm: env.recordCrm, webhooks: env.webhooks }[name];
    return (settings as ConnectionSettings[N] | null) ?? null;
  }

  private loaded(): Promise<void> {
    this.firstLoad ??= this.database
      .whenReady(FIRST_LOAD_WAIT_MS)
      .then(() => this.refresh())
      .catch((err: unknown) => {
        this.firstLoad = null;
        throw err;
      });
    return this.firstLoad;
  }

  /** Reads the rows; only a changed revision is opened again. Concurrent callers share one read. */
  private refresh(): Promise<void> {
    if (!this.database.isReady) return Promise.resolve();
    this.refreshing ??= this.readRows().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  /** A row's secrets; a legacy seal (marked by the migration) is opened once and sealed again, bound to its settings. */
  private async openRow(row: ConnectionRow): Promise<Record<string, unknown>> {
    const binding = connectionBinding(row.name, row.settings);
    if (!row.legacySeal || SecretBox.versionOf(row.sealedSecrets) !== 'v1') return this.open(row.sealedSecrets, binding);
    if (!this.box) throw new SecretBoxError('no connections key');
    const secrets = this.box.openLegacy<Record<string, unknown>>(row.sealedSecrets, legacyConnectionBinding(row.name));
    await this.repository.reseal(row.name, row.sealedSecrets, this.box.seal(secrets, binding));
    this.logger.log(`connection ${row.name}: secrets sealed again, bound to the connection's settings`);
    return secrets;
  }

  /** Why saved Zoho settings may not be used under the domain rule in force now (`RECORD_CRM_ALLOW_CUSTOM_DOMAINS`), or null. */
  private zohoDomainsProblem(settings: ConnectionSettings['record_crm']): string | null {
    const problem =
      zohoDomainProblem('accounts_url', settings.accountsUrl, this.config.zohoDomains) ??
      zohoDomainProblem('api_domain', settings.apiDomain, this.config.zohoDomains);
    return problem ? `the saved Zoho CRM connection is not used: ${problem}. Connect again from the console` : null;
  }

  /** Why a saved Salesforce org's URLs may not be used under the host rule in force now (`APPOINTMENT_CRM_ALLOW_CUSTOM_DOMAINS`), or null. */
  private salesforceHostsProblem(settings: ConnectionSettings['appointment_crm']): string | null {
    if (!isSalesforce(settings)) return null;
    const allowCustom = this.config.salesforce.allowCustomDomains;
    const problem =
      salesforceHostProblem('login_url', settings.loginUrl, allowCustom) ??
      (settings.instanceUrl === null ? null : salesforceHostProblem('instance_url', settings.instanceUrl, allowCustom));
    return problem ? `the saved Salesforce connection is not used: ${problem}. Connect again from the console` : null;
  }

  /** Why a row's saved hosts may not be used now (its secrets would go there), or null. */
  private hostsProblem(name: ConnectionName, settings: ConsoleEntry['settings']): string | null {
    if (!settings) return null;
    if (name === 'record_crm') return this.zohoDomainsProblem(settings as ConnectionSettings['record_crm']);
    if (name === 'appointment_crm') return this.salesforceHostsProblem(settings as ConnectionSettings['appointment_crm']);
    return null;
  }

  private async readRows(): Promise<void> {
    const rows = await this.repository.all();
    const next = new Map<ConnectionName, ConsoleEntry>();
    for (const row of rows) {
      const known = this.fromConsole.get(row.name);
      if (known && known.revision === row.revision) {
        next.set(row.name, known);
        continue;
      }
      let settings: ConsoleEntry['settings'] = null;
      let problem: string | null = null;
      try {
        settings = CODECS[row.name].join(row.settings, await this.openRow(row));
      } catch (err) {
        problem = this.key.ok
          ? `the saved secrets cannot be read with this CONNECTIONS_KEY (${(err as Error).message}): restore the key they were saved with, or save the connection again`
          : `the saved secrets cannot be read: ${this.key.problem}`;
        this.logger.error(`connection ${row.name}: ${problem}`);
      }
      const domains = this.hostsProblem(row.name, settings);
      if (domains) {
        // Saved while custom domains were allowed (or written into the table): the secrets would go to that host.
        [settings, problem] = [null, domains];
        this.logger.error(`connection ${row.name}: ${problem}`);
      }
      next.set(row.name, { revision: row.revision, settings, problem, updatedAt: row.updatedAt, updatedBy: row.updatedBy });
      if (known) this.logger.log(`connection ${row.name} changed (revision ${row.revision})`);
    }
    for (const name of this.fromConsole.keys()) if (!next.has(name)) this.logger.log(`connection ${name} removed`);
    this.fromConsole = next;
  }
}
