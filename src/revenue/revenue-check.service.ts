import { Inject, Injectable } from '@nestjs/common';
import { ActionRecorderService } from '../actions/action-recorder.service.js';
import { PermanentActionError, type ActionEntry, type ActionOutcome } from '../actions/action.types.js';
import { RunsAction } from '../actions/runs-action.decorator.js';
import { ALERT_SINK, type AlertSink } from '../alerts/alert-sink.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ConnectionsService } from '../connections/connections.service.js';
import { CallMeter, withCallMeter } from '../http/call-meter.js';
import type { DealField, NewAction, ProposalPdfPayload, ReconcileScope, SyncTrigger, UpdateDealPayload } from '../domain/actions.js';
import { MaintenanceTask } from '../queues/maintenance-task.decorator.js';
import { QUEUES } from '../queues/queues.js';
import type { SyncLogEntry } from '../sync-log/sync-log.row.js';
import { SyncLogRepository } from '../sync-log/sync-log.repository.js';
import { AppointmentRevenueCheck } from './appointment-revenue.check.js';
import { CallBudget, type SourceOutcome } from './call-budget.js';
import { HEAL_ACTION, type DriftRow, type RecordCheck } from './drift.js';
import { DriftRepository } from './drift.repository.js';
import { ZohoRevenueCheck } from './zoho-revenue.check.js';

/**
 * The revenue check (docs/operations.md, "Revenue that stays right"): passes on the schedule or on demand, each a
 * `revenue_check` entry of the sync log; the drifts it finds raise an alert, and with REVENUE_AUTO_HEAL those whose
 * last change was crm-sync's own write are healed at once. A heal records the normal push again (its sync log entry,
 * fences and read-back); an accept leaves the CRM's value be until the service's changes.
 */
@Injectable()
export class RevenueCheckService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ALERT_SINK) private readonly alerts: AlertSink,
    private readonly actions: ActionRecorderService,
    private readonly connections: ConnectionsService,
    private readonly syncLog: SyncLogRepository,
    private readonly drifts: DriftRepository,
    private readonly appointment: AppointmentRevenueCheck,
    private readonly zoho: ZohoRevenueCheck,
  ) {}

  @MaintenanceTask('revenue-check', { every: (config) => config.revenue.checkIntervalSeconds * 1000, firstRunAfterOnePeriod: true })
  async changesOnSchedule(): Promise<void> {
    await this.start('schedule', 'changes');
  }

  @MaintenanceTask('revenue-check-full', { every: (config) => config.revenue.fullIntervalSeconds * 1000, firstRunAfterOnePeriod: true })
  async fullOnSchedule(): Promise<void> {
    await this.start('schedule', 'full');
  }

  /** A pass of this scope still waiting to start is joined rather than doubled (its coalesce key). */
  async start(trigger: SyncTrigger, scope: ReconcileScope, actor?: string): Promise<SyncLogEntry> {
    const [{ entry }] = await this.actions.record([
      {
        kind: 'revenue_check',
        trigger,
        crm: null,
        projectId: null,
        target: null,
        payload: { scope },
        coalesceKey: `revenue_check:${scope}`,
        ...(actor ? { actor } : {}),
      },
    ]);
    return entry;
  }

  @RunsAction('revenue_check', { queue: QUEUES.service })
  async run(entry: ActionEntry<'revenue_check'>): Promise<ActionOutcome> {
    const scope = entry.payload.scope === 'full' ? 'full' : 'changes';
    const startedAt = new Date();
    const parts: string[] = [];
    let raised = 0;
    const settle = async (checks: RecordCheck[]) => {
      const { raised: found } = await this.drifts.settle(checks);
      raised += found.length;
      await this.onRaised(found);
    };
    // Each CRM's calls as its HTTP client sent them (`system`: Salesforce's data API, not its token requests; Zoho's API,
    // not its accounts server, whose tokens cost no API credits).
    for (const [name, connection, system, check] of [
      ['appointment CRM', 'appointment_crm', 'appointment_crm', this.appointment],
      ['Zoho CRM', 'record_crm', 'zoho', this.zoho],
    ] as const) {
      if (!(await this.connections.get(connection))) continue;
      const meter = new CallMeter();
      const budget = new CallBudget(this.config.revenue.callBudget, () => meter.of(system));
      const outcome: SourceOutcome = await withCallMeter(meter, () =>
        scope === 'full' ? check.full(budget, settle) : check.changes(budget, startedAt, settle),
      );
      const stopped = outcome.stopped ? ' (stopped at the call budget: the next pass goes on)' : '';
      parts.push(`${name}: ${outcome.checked} record(s) compared, ${outcome.calls} call(s)${stopped}`);
    }
    if (parts.length === 0) return { status: 'skipped', detail: 'no CRM is connected' };
    return { status: 'succeeded', detail: `${scope} pass: ${parts.join('; ')}; ${raised} new drift(s)` };
  }

  /** Each new drift raises the alert (rate-limited per kind); auto-heal writes again where crm-sync's own write was last. */
  private async onRaised(found: DriftRow[]): Promise<void> {
    for (const drift of found) {
      this.alerts.notify('revenue_drift', {
        detail: `${drift.target} (${drift.crm === 'record' ? 'Zoho CRM' : 'appointment CRM'}): ${drift.kind} is ${drift.crmValue ?? 'nothing'}, the service's ${drift.serviceValue ?? 'nothing'}`,
      });
      if (this.config.revenue.autoHeal && drift.byCrmSync) await this.heal(drift, 'automation', undefined);
    }
  }

  /** Writes the service's value again through the normal push; answers its sync log entry. */
  async heal(drift: DriftRow, trigger: SyncTrigger, actor: string | undefined): Promise<SyncLogEntry> {
    if (!drift.approvalEntryId) throw new PermanentActionError(`drift ${drift.id} names no approval to write again`);
    const approval = await this.syncLog.get(drift.approvalEntryId);
    if (!approval) throw new PermanentActionError(`drift ${drift.id}: sync log entry ${drift.approvalEntryId} is gone`);
    const action = healAction(drift, approval, trigger, actor);
    const [{ entry }] = await this.actions.record([action]);
    await this.drifts.markHealing(drift.id, entry.id, actor ?? null);
    return entry;
  }

  async accept(drift: DriftRow, actor: string): Promise<DriftRow | null> {
    return this.drifts.accept(drift.id, actor);
  }
}

/** The Deal field each Deal kind is. */
const DEAL_FIELD = { amount: 'Amount', stage: 'Stage', closing_date: 'Closing_Date' } as const satisfies Partial<Record<DriftRow['kind'], DealField>>;

/** The push that writes the service's value of a drift's kind again, from the approval's own entry. */
export function healAction(drift: DriftRow, approval: SyncLogEntry, trigger: SyncTrigger, actor: string | undefined): NewAction {
  const kind = HEAL_ACTION[drift.kind];
  const payload = withoutProgress(approval.payload);
  const common = {
    trigger,
    crm: drift.crm,
    projectId: approval.projectId,
    target: approval.target,
    // Asking again while a heal of the record is queued joins it: the same push (a Quote's rows and total), not a
    // Deal's other field (its heal writes its own field only).
    dedupeKey: `revenue:heal:${drift.id}:${Date.now()}`,
    coalesceKey: `revenue:heal:${drift.crm}:${approval.target}:${kind === 'update_deal' ? `${kind}:${drift.kind}` : kind}`,
    ...(actor ? { actor } : {}),
  };
  // A heal writes its own kind only: the rest of the normal push (the chain's next steps, the Deal's other fields) may
  // hold a person's value, accepted or waiting for a decision.
  switch (kind) {
    case 'update_deal':
    case 'push_quote':
      if (approval.kind !== kind) throw new PermanentActionError(`drift ${drift.id}: entry ${approval.id} is ${approval.kind}, not ${kind}`);
      return kind === 'push_quote'
        ? { ...common, kind, payload: payload as never }
        : { ...common, kind, payload: { ...(payload as unknown as UpdateDealPayload), only: [DEAL_FIELD[drift.kind as keyof typeof DEAL_FIELD]] } };
    case 'set_status':
      return { ...common, kind, payload: { status: 'Sold', ...(typeof payload.amount === 'string' ? { amount: payload.amount } : {}) } };
    case 'push_line_items':
      if (typeof payload.drawing_id !== 'string') throw new PermanentActionError(`drift ${drift.id}: the approval names no drawing`);
      return {
        ...common,
        kind,
        payload: {
          drawing_id: payload.drawing_id,
          ...(typeof payload.drawing_version_id === 'string' ? { drawing_version_id: payload.drawing_version_id } : {}),
          ...(typeof payload.amount === 'string' ? { amount: payload.amount } : {}),
          alone: true,
        },
      };
    case 'push_proposal_pdf':
      if (approval.kind !== 'push_proposal_pdf') throw new PermanentActionError(`drift ${drift.id}: the approval pushed no proposal file`);
      return { ...common, kind, payload: { ...(payload as ProposalPdfPayload), alone: true } };
  }
}

/**
 * An entry's payload without the marks its runs left (`<write>SentAt`, the write fence's): a heal is a new entry, whose
 * first run has no earlier write of its own to wait for.
 */
function withoutProgress(payload: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(payload).filter(([key]) => !key.endsWith('SentAt')));
}
