import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { withAdvisoryLock } from '../database/advisory-lock.js';
import { currentCallTrace } from '../http/call-trace.js';
import { MappingRepository } from '../mappings/mapping.repository.js';
import { MappingsService } from '../mappings/mappings.service.js';
import { QUEUES } from '../queues/queues.js';
import { ServiceApiClient } from '../service-api/service-api.client.js';
import type { Payment, Proposal } from '../service-api/service-api.types.js';
import type { ActionEntry, ActionOutcome } from '../actions/action.types.js';
import { RunsAction } from '../actions/runs-action.decorator.js';
import { SyncLogRepository } from '../sync-log/sync-log.repository.js';
import { DeliveryRouterService } from '../webhooks/delivery-router.service.js';
import type { PaymentReceivedData, PaymentReversedData, ProjectEventData, ProposalStatusChangedData, RoutedDelivery } from '../domain/service-events.js';
import type { ReconcilePayload } from '../domain/actions.js';
import { RelayRecoveryService } from '../relay/relay-recovery.service.js';
import { fingerprintOf, ProposalFingerprints, type SeenProposal } from './proposal-fingerprints.js';

const CHANGES_LOCK_KEY = 8_127_303_552;
const FULL_LOCK_KEY = 8_127_303_553;
const PER_PAGE = 100;
const PROJECTS_PER_READ = 500;
/** The sweep of the service's projects saves its progress (the entry's detail) every this many projects. */
const SWEEP_PROGRESS_EVERY = 500;

interface Tally {
  projects: number;
  approvals: number;
  payments: number;
  reversals: number;
  created: number;
}

interface Listed {
  proposal: Proposal;
  fingerprint: string;
  stored?: SeenProposal;
}

/**
 * Repairs what a lost webhook or a failed push left behind, in two passes (the entry's `payload.scope`):
 *
 * - changes: re-enqueues stored work no job finished, associates pending mappings, and reads R3 unfiltered from
 *   the most recent activity down, only until a page holds nothing new since the last pass (`reconcile_proposal`);
 *   each approved proposal of a mapped project found changed is replayed with its payments (R5). Its cost follows
 *   the changes, not the number of projects.
 * - full: every mapped project, in id order: its approved proposals and their payments, and each CRM module's own
 *   drift (drawing versions). Paced to half the service's rate cap, with its position saved after every project, so
 *   a run killed mid-way continues where it stopped.
 *
 * Replays are made-up deliveries through the webhook handlers, which key those actions on the fact: what was pushed
 * already is a no-op. Payments R5 reports returned or refunded get a note saying so, once. One pass of each scope at
 * a time across all replicas (an advisory lock per scope; a run that cannot get it is skipped).
 */
@Injectable()
export class ReconcileActionsService {
  private readonly logger = new Logger(ReconcileActionsService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly syncLog: SyncLogRepository,
    private readonly mappingRows: MappingRepository,
    private readonly mappings: MappingsService,
    private readonly service: ServiceApiClient,
    private readonly router: DeliveryRouterService,
    private readonly recovery: RelayRecoveryService,
    private readonly fingerprints: ProposalFingerprints,
  ) {}

  @RunsAction('reconcile', { queue: QUEUES.service })
  async run(entry: ActionEntry<'reconcile'>): Promise<ActionOutcome> {
    const full = entry.payload?.scope === 'full';
    return withAdvisoryLock<ActionOutcome>(
      this.config.databaseUrl,
      full ? FULL_LOCK_KEY : CHANGES_LOCK_KEY,
      async () => ({ status: 'succeeded', detail: full ? await this.fullPass(entry.id, entry.payload) : await this.changesPass() }),
      { ifTaken: () => ({ status: 'skipped', detail: `another ${full ? 'full' : 'changes'} pass is in progress` }) },
    );
  }

  private async changesPass(): Promise<string> {
    const { deliveries, actions: unfinished } = await this.recovery.recover(this.config.jobs.staleAfterMs);
    const associations = await this.mappings.associatePending('reconcile');
    const { listed, pages } = await this.readChanged();
    const changed = touched(listed);
    const tally: Tally = { projects: 0, approvals: 0, payments: 0, reversals: 0, created: 0 };
    const mapped = await this.mappingRows.findMappedProjectsAmong(listed.map((l) => l.proposal.project_id));
    for (const { proposal } of changed) {
      if (mapped.has(proposal.project_id)) await this.replayProposal(proposal, tally);
    }
    // The proposal the last pass saw most recent cannot show a new payment by moving up: its payments are read.
    const head = listed.find((l) => !changed.includes(l));
    if (head && mapped.has(head.proposal.project_id)) await this.replayProposal(head.proposal, tally);
    // Every proposal read is stamped again in the order read, so the stored order is always the last one seen.
    await this.fingerprints.saveSeen(listed);
    const summary =
      `changes pass: ${pages} R3 page(s) read, ${changed.length} proposal(s) changed since the last pass; ` +
      `${tally.approvals} approved proposal(s) and ${tally.payments} payment(s) replayed, ${tally.reversals} reversal(s); ` +
      `${tally.created} action(s) created; ${associations.length} association action(s) started; ` +
      `${deliveries} unrouted delivery(ies) and ${unfinished} unfinished action(s) checked for a lost job`;
    this.logger.log(`reconciliation: ${summary}`);
    return summary;
  }

  /** R3 from the most recent activity down, to the first page where every proposal is as the last pass saw it. */
  private async readChanged(): Promise<{ listed: Listed[]; pages: number }> {
    const listed: Listed[] = [];
    const ids = new Set<string>();
    for (let page = 1; ; page++) {
      const proposals = (await this.service.listProposals({ page, perPage: PER_PAGE })).filter((p) => !ids.has(p.proposal_id));
      if (proposals.length === 0) return { listed, pages: page };
      const stored = await this.fingerprints.get(proposals.map((p) => p.proposal_id));
      const items = proposals.map((proposal) => ({ proposal, fingerprint: fingerprintOf(proposal), stored: stored.get(proposal.proposal_id) }));
      items.forEach((i) => ids.add(i.proposal.proposal_id));
      listed.push(...items);
      const asBefore = items.every((i, k) => i.stored?.fingerprint === i.fingerprint && (k === 0 || items[k - 1].stored!.stamp > i.stored.stamp));
      if (asBefore) return { listed, pages: page };
    }
  }

  private async fullPass(entryId: string, payload: ReconcilePayload): Promise<string> {
    const tally: Tally = { projects: 0, approvals: 0, payments: 0, reversals: 0, created: 0 };
    const position = { after: payload.after ?? null, done: payload.done ?? 0, total: payload.total ?? (await this.mappingRows.countMappedProjects()) };
    const resumed = position.after !== null;
    const pace = new Pacer(2000 / this.config.service.maxRps);
    for (;;) {
      const projects = await this.mappingRows.findMappedProjectsAfter(position.after, PROJECTS_PER_READ);
      for (const projectId of projects) {
        await this.reconcileProject(projectId, tally);
        position.after = projectId;
        position.done++;
        await this.syncLog.saveProgress(
          entryId,
          position,
          `full pass: ${count(position.done)} of ${count(position.total)} project(s) checked; ${count(pace.calls())} service call(s) in this run`,
        );
        await pace.wait();
      }
      if (projects.length < PROJECTS_PER_READ) break;
    }
    const swept = await this.sweepProjects(entryId, position, pace, tally);
    const summary =
      `full pass: ${count(position.done)} of ${count(position.total)} mapped project(s) checked` +
      `${resumed ? ` (resumed after project ${payload.after}; ${count(tally.projects)} in this run)` : ''}; ` +
      `${tally.approvals} approved proposal(s) and ${tally.payments} payment(s) replayed, ${tally.reversals} reversal(s); ` +
      `${tally.created} action(s) created; ${count(swept)} project(s) of the service swept (P1) for names and suggestions; ` +
      `${pace.calls()} service call(s) in this run`;
    this.logger.log(`reconciliation: ${summary}`);
    return summary;
  }

  /**
   * Every project of the service (P1, a page per call, at the pass's pace), routed as a made-up `project.updated`: its
   * name is kept, and a project created before crm-sync, or whose webhook was lost, is looked for in the CRMs
   * (suggestions). A look already made for the same fields is not made again, so a second sweep costs P1 pages only.
   */
  private async sweepProjects(entryId: string, position: { after: string | null; done: number; total: number }, pace: Pacer, tally: Tally): Promise<number> {
    let swept = 0;
    for await (const project of this.service.allProjects()) {
      const data: ProjectEventData = { ...project, id: String(project.id), tags: project.tags ?? [], source: null };
      tally.created += await this.router.routeSynthetic({
        trigger: 'reconcile',
        inboxId: null,
        receivedAt: new Date(),
        shortId: `p${data.id}`,
        event: 'project.updated',
        data,
        projectId: data.id,
      });
      if (++swept % SWEEP_PROGRESS_EVERY === 0) {
        await this.syncLog.saveProgress(entryId, position, `full pass: mapped projects checked; ${count(swept)} project(s) of the service swept`);
      }
      await pace.wait();
    }
    return swept;
  }

  private async reconcileProject(projectId: string, tally: Tally): Promise<void> {
    tally.projects++;
    for await (const proposal of this.service.allProposals({ projectId })) {
      await this.replayProposal({ ...proposal, project_id: projectId }, tally);
    }
    tally.created += await this.router.reconcileProject(projectId);
  }

  /** An approved proposal of a mapped project: its approval, its payments (R5), and their reversals. */
  private async replayProposal(proposal: Proposal, tally: Tally): Promise<void> {
    if (proposal.status !== 'APPROVED') return;
    const projectId = proposal.project_id;
    tally.approvals++;
    tally.created += await this.router.routeSynthetic(approvalOf(proposal));
    const seen = new Map<string, number>();
    for (const payment of await this.service.listPayments(proposal.proposal_id)) {
      tally.payments++;
      const received = paymentOf(proposal, payment);
      tally.created += await this.router.routeSynthetic(synthetic('proposal.payment.received', received, projectId, paymentShortId(received, seen)));
      for (const reversal of reversalsOf(received, payment, projectId)) {
        tally.reversals++;
        tally.created += await this.router.routeSynthetic(synthetic('reconcile.payment_reversed', reversal, projectId, `r${reversal.reversal}`));
      }
    }
  }
}

/**
 * The proposals of the pages read that changed since the last pass: new ones, ones whose fingerprint differs, and
 * ones now listed above a proposal that was more recent when last seen (they had activity since: e.g. a payment).
 */
function touched(listed: Listed[]): Listed[] {
  const out: Listed[] = [];
  let newestBelow = -Infinity;
  for (let i = listed.length - 1; i >= 0; i--) {
    const item = listed[i];
    if (!item.stored || item.stored.fingerprint !== item.fingerprint || item.stored.stamp < newestBelow) out.unshift(item);
    if (item.stored) newestBelow = Math.max(newestBelow, item.stored.stamp);
  }
  return out;
}

/** Keeps the service calls of the running action to one per `gapMs` on average (the action's call trace counts them). */
class Pacer {
  private readonly started = Date.now();
  private readonly before = Pacer.traced();

  constructor(private readonly gapMs: number) {}

  private static traced(): number {
    const trace = currentCallTrace();
    return trace ? trace.calls.length + trace.dropped : 0;
  }

  calls(): number {
    return Pacer.traced() - this.before;
  }

  async wait(): Promise<void> {
    const due = this.started + this.calls() * this.gapMs;
    if (due > Date.now()) await sleep(due - Date.now());
  }
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function approvalOf(proposal: Proposal): RoutedDelivery {
  const data: ProposalStatusChangedData = { ...proposal, status: 'APPROVED', customer_email: proposal.customer_email ?? '' };
  return synthetic('proposal.status_changed', data, proposal.project_id, `a${proposal.proposal_id}`);
}

function paymentOf(proposal: Proposal, payment: Payment): PaymentReceivedData {
  return {
    proposal_id: proposal.proposal_id,
    drawing_id: proposal.approved_option?.drawing_id ?? '',
    paid_amount: payment.paid_amount,
    pay_channel: payment.pay_channel,
    paid_time: payment.paid_time,
    paid_date: payment.paid_date,
    payment_method: payment.payment_method,
  };
}

/** Payments have no id: equal ones of one proposal are told apart by their order. */
function paymentShortId(data: PaymentReceivedData, seen: Map<string, number>): string {
  const fingerprint = JSON.stringify(data);
  const nth = (seen.get(fingerprint) ?? 0) + 1;
  seen.set(fingerprint, nth);
  return `p${createHash('sha256').update(`${fingerprint}#${nth}`).digest('hex').slice(0, 12)}`;
}

function reversalsOf(received: PaymentReceivedData, payment: Payment, projectId: string): PaymentReversedData[] {
  const out: PaymentReversedData[] = [];
  if (payment.status === 'returned') out.push({ ...received, project_id: projectId, reversal: 'returned' });
  if (Number(payment.refunded_amount ?? 0) > 0)
    out.push({ ...received, project_id: projectId, reversal: 'refunded', refunded_amount: payment.refunded_amount });
  return out;
}

function synthetic<E extends 'proposal.status_changed' | 'proposal.payment.received' | 'reconcile.payment_reversed'>(
  event: E,
  data: Extract<RoutedDelivery, { event: E }>['data'],
  projectId: string,
  shortId: string,
): RoutedDelivery {
  return { trigger: 'reconcile', inboxId: null, receivedAt: new Date(), shortId, event, data, projectId } as RoutedDelivery;
}
