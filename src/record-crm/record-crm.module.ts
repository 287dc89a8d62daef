import { Inject, Module } from '@nestjs/common';
import { AlertsModule } from '../alerts/alerts.module.js';
import { AutomationSettingsModule } from '../crm-settings/automation-settings.module.js';
import { ConnectionsModule } from '../connections/connections.module.js';
import { ReadinessCheck, type ReadinessOutcome } from '../observability/readiness.registry.js';
import { ObservabilityModule } from '../observability/observability.module.js';
import { ZohoFieldsClient } from './zoho/zoho-fields.client.js';
import { RecordLinks } from '../mappings/crm-links.service.js';
import { RecordNames } from '../mappings/mapping-names.service.js';
import type { Mapping } from '../mappings/mapping.row.js';
import { MappingsModule } from '../mappings/mappings.module.js';
import { QueuesModule } from '../queues/queues.module.js';
import { ServiceApiModule } from '../service-api/service-api.module.js';
import { ActionsModule } from '../actions/actions.module.js';
import { RecordActionsService } from './record-actions.service.js';
import { RecordDeliveriesService } from './record-deliveries.service.js';
import { RECORD_CRM, type RecordCrm } from './record-crm.js';
import { ZohoClient } from './zoho/zoho.client.js';
import { ZohoUsage } from './zoho/zoho-usage.js';
import { DealRevenueRepository } from './revenue/deal-revenue.repository.js';
import { RevenueActionsService } from './revenue/revenue-actions.service.js';
import { RevenueSettingsService } from './revenue/revenue-settings.service.js';
import { ZohoProductRepository } from './revenue/zoho-product.repository.js';
import { ZohoQuoteRepository } from './revenue/zoho-quote.repository.js';
import { ZohoRevenueClient } from './zoho/zoho-revenue.client.js';
import { ZohoNotificationsClient } from './zoho/zoho-notifications.client.js';
import { ZohoOwnWrites } from './zoho/zoho-own-writes.js';

/**
 * A failed readiness answer is reused this long, so probes never use up Zoho's 10 tokens per 10 minutes. (A good
 * answer needs no caching: it comes from the cached token, as does a remembered refusal.)
 */
const READINESS_CACHE_MS = 30_000;
/** A readiness probe waits no longer than this for the accounts server; the refresh goes on behind it. */
const READINESS_WAIT_MS = 2_000;

/**
 * Zoho CRM: attachments and notes on records, and revenue (a Deal's amount and stage, a drawing's Quote). Always imported by AppModule: its connection may come from the
 * environment or later from the console (Zoho's consent), and ZohoClient reads it anew from ConnectionsService on each
 * call, so a CRM connected later needs no restart.
 */
@Module({
  imports: [AlertsModule, AutomationSettingsModule, ConnectionsModule, ObservabilityModule, QueuesModule, ActionsModule, MappingsModule, ServiceApiModule],
  providers: [
    ZohoClient,
    ZohoUsage,
    { provide: RECORD_CRM, useExisting: ZohoClient },
    RecordActionsService,
    RecordDeliveriesService,
    // Revenue in Zoho: the Deal follows the proposal, line items become a Quote.
    ZohoRevenueClient,
    ZohoFieldsClient,
    ZohoNotificationsClient,
    ZohoOwnWrites,
    RevenueActionsService,
    RevenueSettingsService,
    ZohoProductRepository,
    ZohoQuoteRepository,
    DealRevenueRepository,
  ],
  exports: [
    RECORD_CRM,
    DealRevenueRepository,
    ZohoQuoteRepository,
    ZohoProductRepository,
    RevenueSettingsService,
    ZohoRevenueClient,
    ZohoFieldsClient,
    ZohoNotificationsClient,
    ZohoOwnWrites,
    ZohoUsage,
  ],
})
export class RecordCrmModule {
  private failed?: { outcome: ReadinessOutcome; at: number };

  constructor(
    @Inject(RECORD_CRM) private readonly crm: RecordCrm,
    private readonly fields: ZohoFieldsClient,
  ) {}

  /** A mapped record's name, read from Zoho (MappingNamesService). */
  @RecordNames('record')
  async recordName(mapping: Mapping): Promise<string | null> {
    return this.crm.recordName({ module: mapping.recordCrmModule!, recordId: mapping.recordCrmRecordId! });
  }

  /**
   * Where each record opens in Zoho's web app (CrmLinksService): `<base>/tab/<module_name>/<id>`, the module by its
   * name in Zoho's web addresses (ZohoFieldsClient.webNames; its API name when the modules cannot be read now).
   */
  @RecordLinks('record')
  async recordLinks(targets: string[]): Promise<Map<string, string>> {
    const base = await this.crm.webBase();
    if (!base) return new Map();
    const webNames: ReadonlyMap<string, string> = await this.fields.webNames().catch(() => new Map<string, string>());
    return new Map(
      targets.map((t) => {
        const [module, id] = t.split('/');
        return [t, `${base}/tab/${encodeURIComponent(webNames.get(module) ?? module)}/${encodeURIComponent(id ?? '')}`];
      }),
    );
  }

  /** `degraded` (a warning; the daemon stays ready) when no Zoho token can be obtained. */
  @ReadinessCheck('record_crm')
  async ready(): Promise<ReadinessOutcome> {
    if (this.failed && Date.now() - this.failed.at < READINESS_CACHE_MS) return this.failed.outcome;
    const waiting = 'the Zoho accounts server has not answered yet';
    const problem = await Promise.race([
      this.crm.accessProblem(),
      // A slow accounts server: answer now; the probes that follow join the same refresh.
      new Promise<string>((resolve) => setTimeout(resolve, READINESS_WAIT_MS, waiting).unref()),
    ]);
    if (!problem) return { status: 'up' };
    const outcome: ReadinessOutcome = { status: 'degraded', message: problem };
    if (problem !== waiting) this.failed = { outcome, at: Date.now() };
    return outcome;
  }
}
