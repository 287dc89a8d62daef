import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { withAdvisoryLock } from '../database/advisory-lock.js';
import { DatabaseService } from '../database/database.service.js';
import { MappingsService } from '../mappings/mappings.service.js';
import { QUEUES } from '../queues/queues.js';
import { ServiceApiClient } from '../service-api/service-api.client.js';
import type { Payment, Proposal } from '../service-api/service-api.types.js';
import type { ActionEntry, ActionOutcome } from '../sync-log/action.types.js';
import { RunsAction } from '../sync-log/runs-action.decorator.js';
import { DeliveryRouter } from '../webhooks/delivery-router.service.js';
import type { PaymentReceivedData, ProposalStatusChangedData, RoutedDelivery } from '../domain/service-events.js';
import { RelayRecovery } from '../relay/relay-recovery.service.js';

const RECONCILE_LOCK_KEY = 8_127_303_552;

interface Tally {
  projects: number;
  approvals: number;
  payments: number;
  created: number;
}

/**
 * Repairs what a lost webhook or a failed push left behind: re-enqueues stored work no job finished, associates
 * pending mappings, replays every approved proposal (R3) and its payments (R5) of each mapped project as made-up
 * deliveries — the CRM modules key those actions on the fact, so what was pushed already is a no-op — and asks
 * each CRM module for the drift only it can see (drawings whose versions changed). One run at a time across all
 * replicas: a run holds a Postgres advisory lock, and a run that cannot get it is skipped.
 */
@Injectable()
export class ReconcileActionsService {
  private readonly logger = new Logger(ReconcileActionsService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly database: DatabaseService,
    private readonly mappings: MappingsService,
    private readonly service: ServiceApiClient,
    private readonly router: DeliveryRouter,
    private readonly recovery: RelayRecovery,
  ) {}

  @RunsAction('reconcile', { queue: QUEUES.service })
  async run(_entry: ActionEntry<'reconcile'>): Promise<ActionOutcome> {
    return withAdvisoryLock<ActionOutcome>(this.config.databaseUrl, RECONCILE_LOCK_KEY, async () => ({ status: 'succeeded', detail: await this.reconcile() }), {
      ifTaken: () => ({ status: 'skipped', detail: 'another reconciliation run is in progress' }),
    });
  }

  private async reconcile(): Promise<string> {
    const staleMs = this.config.jobs.staleAfterMs;
    const { deliveries, actions: unfinished } = await this.recovery.recover(staleMs);
    const associations = await this.mappings.associatePending('reconcile');
    const tally: Tally = { projects: 0, approvals: 0, payments: 0, created: 0 };
    for (const projectId of await this.mappedProjects()) {
      tally.projects++;
      await this.reconcileProject(projectId, tally);
    }
    const summary =
      `${tally.projects} mapped project(s) checked; ${tally.approvals} approved proposal(s) and ${tally.payments} payment(s) replayed; ` +
      `${tally.created} action(s) created; ${associations.length} association action(s) started; ` +
      `${deliveries} unrouted delivery(ies) and ${unfinished} unfinished action(s) checked for a lost job`;
    this.logger.log(`reconciliation: ${summary}`);
    return summary;
  }

  private async reconcileProject(projectId: string, tally: Tally): Promise<void> {
    for await (const proposal of this.service.allProposals({ projectId })) {
      if (proposal.status !== 'APPROVED') continue;
      tally.approvals++;
      tally.created += await this.router.routeSynthetic(this.approvalOf(proposal, projectId));
      const seen = new Map<string, number>();
      for (const payment of await this.service.listPayments(proposal.proposal_id)) {
        tally.payments++;
        tally.created += await this.router.routeSynthetic(this.paymentOf(proposal, payment, projectId, seen));
      }
    }
    tally.created += await this.router.reconcileProject(projectId);
  }

  private async mappedProjects(): Promise<string[]> {
    const rows: Array<{ project_id: string }> = await this.database.query(
      `SELECT DISTINCT project_id FROM mapping WHERE status IN ('pending', 'associated') ORDER BY project_id`,
    );
    return rows.map((r) => r.project_id);
  }

  private approvalOf(proposal: Proposal, projectId: string): RoutedDelivery {
    const data: ProposalStatusChangedData = {
      ...proposal,
      project_id: projectId,
      status: 'APPROVED',
      customer_email: proposal.customer_email ?? '',
    };
    return synthetic('proposal.status_changed', data, projectId, `a${proposal.proposal_id}`);
  }

  private paymentOf(proposal: Proposal, payment: Payment, projectId: string, seen: Map<string, number>): RoutedDelivery {
    const data: PaymentReceivedData = {
      proposal_id: proposal.proposal_id,
      drawing_id: proposal.approved_option?.drawing_id ?? '',
      paid_amount: payment.paid_amount,
      pay_channel: payment.pay_channel,
      paid_time: payment.paid_time,
      paid_date: payment.paid_date,
      payment_method: payment.payment_method,
    };
    const fingerprint = JSON.stringify(data);
    const nth = (seen.get(fingerprint) ?? 0) + 1;
    seen.set(fingerprint, nth);
    const shortId = `p${createHash('sha256').update(`${fingerprint}#${nth}`).digest('hex').slice(0, 12)}`;
    return synthetic('proposal.payment.received', data, projectId, shortId);
  }
}

function synthetic<E extends 'proposal.status_changed' | 'proposal.payment.received'>(
  event: E,
  data: E extends 'proposal.status_changed' ? ProposalStatusChangedData : PaymentReceivedData,
  projectId: string,
  shortId: string,
): RoutedDelivery {
  return { trigger: 'reconcile', inboxId: null, receivedAt: new Date(), shortId, event, data, projectId } as RoutedDelivery;
}
