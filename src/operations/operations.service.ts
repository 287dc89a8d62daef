import { BadGatewayException, ConflictException, Injectable, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import type { AdminActor } from '../config/roles.js';
import { AdminAuditService } from '../actions/admin-audit.service.js';
import { CrmLinksService } from '../mappings/crm-links.service.js';
import { TargetNamesService } from '../mappings/target-names.service.js';
import { syncLogEntryView } from './sync-log.view.js';
import { ConnectionViewsService } from '../connection-console/connection-views.service.js';
import { ConnectionsService } from '../connections/connections.service.js';
import { parseExactJson } from '../http/exact-json.js';
import { MappingRepository } from '../mappings/mapping.repository.js';
import { MappingNamesService } from '../mappings/mapping-names.service.js';
import { ProjectsService } from '../projects/projects.service.js';
import { RelaySignalService } from '../queues/relay-signal.service.js';
import { DealRevenueRepository } from '../record-crm/revenue/deal-revenue.repository.js';
import { SyncLogRepository, type FailedFilter } from '../sync-log/sync-log.repository.js';
import { DeliveryRouterService } from '../webhooks/delivery-router.service.js';
import { InboxRepository, type DeliveryFilter, type DeliveryRow } from '../webhooks/inbox.repository.js';
import { parseDelivery } from '../webhooks/parse-delivery.js';
import { OVERVIEW_WINDOWS, type OverviewWindow } from './operations.dto.js';
import { chainsOf, deliveryView, type DeliveryDetailView, type OverviewView, type ProjectView, type ProjectsCreatedView } from './operations.view.js';

export const PROJECT_DELIVERIES_LIMIT = 100;
export const PROJECT_ACTIONS_LIMIT = 200;
/** At most this many entries are retried by one bulk retry; the answer says when more matched. */
export const BULK_RETRY_CAP = 10_000;

/** What the operations routes do: the overview, the project view, deliveries and their replay, the bulk retry. */
@Injectable()
export class OperationsService {
  constructor(
    private readonly syncLog: SyncLogRepository,
    private readonly inbox: InboxRepository,
    private readonly mappings: MappingRepository,
    private readonly dealRevenue: DealRevenueRepository,
    private readonly router: DeliveryRouterService,
    private readonly relay: RelaySignalService,
    private readonly audit: AdminAuditService,
    private readonly connectionViews: ConnectionViewsService,
    private readonly connectionSettings: ConnectionsService,
    private readonly projects: ProjectsService,
    private readonly mappingNames: MappingNamesService,
    private readonly targetNames: TargetNamesService,
    private readonly links: CrmLinksService,
  ) {}

  /** The names of the projects of these rows (by id), for their views. */
  projectNames(projectIds: Array<string | null>): Promise<Map<string, string>> {
    return this.projects.names(projectIds);
  }

  async overview(window: OverviewWindow): Promise<OverviewView> {
    const since = new Date(Date.now() - OVERVIEW_WINDOWS[window]);
    const [byStatus, byKind, perHour, oldest, waiting, connections, creations] = await Promise.all([
      this.syncLog.countByStatusSince(since),
      this.syncLog.countByKindSince(since),
      this.syncLog.countFinishedPerHourSince(since),
      this.syncLog.oldestQueuedAgeSeconds(),
      this.inbox.countWaiting(),
      this.connections(),
      this.syncLog.countProjectCreationsSince(since),
    ]);
    const succeeded = byStatus.succeeded ?? 0;
    const failed = byStatus.failed ?? 0;
    return {
      window,
      since: since.toISOString(),
      by_status: byStatus,
      by_kind: byKind,
      success_rate: succeeded + failed === 0 ? null : succeeded / (succeeded + failed),
      per_hour: perHour,
      oldest_queued_age_seconds: oldest,
      deliveries_waiting: waiting,
      projects_created: projectsCreated(creations),
      connections,
    };
  }

  /** Each connection's state, as the Connections screen shows it; the webhooks' with which endpoints have a secret. */
  private async connections(): Promise<Record<string, unknown>> {
    const [views, webhooks] = await Promise.all([this.connectionViews.list(), this.connectionSettings.get('webhooks')]);
    const states: Record<string, unknown> = {};
    for (const view of views) states[view.name] = { status: view.status, detail: view.detail };
    // A Salesforce org's daily API requests (the overview shows how much of the allocation is spent).
    const usage = views.find((v) => v.name === 'appointment_crm')?.settings?.api_usage;
    if (usage) states.appointment_crm = { ...(states.appointment_crm as object), api_usage: usage };
    states.webhooks = {
      ...(states.webhooks as object),
      endpoints: {
        events: (webhooks?.events.length ?? 0) > 0,
        appointment_prompt: (webhooks?.appointmentPrompt.length ?? 0) > 0,
        record_prompt: (webhooks?.recordPrompt.length ?? 0) > 0,
      },
    };
    return states;
  }

  /**
   * A project crm-sync knows (its name kept, or a mapping, a delivery, an action or a Deal's revenue of it); the service
   * is read (P4) only for such a project whose name is not kept yet, never for any id a caller makes up: 404 then.
   */
  async project(projectId: string): Promise<ProjectView> {
    const [stored, mappings, deliveries, actions, deal] = await Promise.all([
      this.projects.known([projectId], false).then((known) => known.get(projectId) ?? null),
      this.mappings.findAllByProject(projectId),
      this.inbox.findNewestByProject(projectId, PROJECT_DELIVERIES_LIMIT),
      this.syncLog.findNewestByProject(projectId, PROJECT_ACTIONS_LIMIT),
      this.dealRevenue.latestOfProject(projectId),
    ]);
    if (!stored && mappings.length === 0 && deliveries.length === 0 && actions.length === 0 && !deal) {
      throw new NotFoundException({ statusCode: 404, message: `project ${projectId} is not known to crm-sync`, error: 'Not Found' });
    }
    const project = stored ?? (await this.projects.one(projectId));
    const names = new Map(project ? [[projectId, project.name]] : []);
    const dealTarget = deal ? { crm: 'record', target: `Deals/${deal.dealId}` } : null;
    const [targets, links] = await Promise.all([this.targetNames.namesOf(actions), this.links.linksOf(dealTarget ? [...actions, dealTarget] : actions)]);
    return {
      project_id: projectId,
      name: project?.name ?? null,
      customer: project ? project.customer : null,
      mappings: await this.mappingNames.views(mappings),
      deliveries: deliveries.map((d) => deliveryView(d, names)),
      actions: actions.map((a) => syncLogEntryView(a, names, targets, links)),
      chains: chainsOf(actions.map((a) => ({ id: String(a.id), parentId: a.parentId === null ? null : String(a.parentId) }))),
      deal: deal && {
        target: `Deals/${deal.dealId}`,
        web_url: links.get(`record:Deals/${deal.dealId}`) ?? null,
        amount: deal.amount,
        stage: deal.stage,
        closing_date: deal.closingDate,
        proposal_id: deal.proposalId,
        written_at: deal.writtenAt.toISOString(),
        sync_log_id: deal.entryId,
      },
    };
  }

  /** A page of the webhook inbox, newest first (`filter.limit + 1` rows: the extra one says there is a next page). */
  deliveries(filter: DeliveryFilter): Promise<DeliveryRow[]> {
    return this.inbox.list(filter);
  }

  async delivery(id: string): Promise<DeliveryDetailView> {
    const row = await this.inbox.findWithBody(id);
    if (!row) throw notFound(id);
    const text = row.body.toString('utf8');
    let json: unknown = null;
    try {
      json = parseExactJson(text);
    } catch {
      json = null;
    }
    const actions = await this.syncLog.findByInbox(id);
    const [names, targets, links] = await Promise.all([
      this.projects.names([row.projectId, ...actions.map((a) => a.projectId)]),
      this.targetNames.namesOf(actions),
      this.links.linksOf(actions),
    ]);
    return { ...deliveryView(row, names), body: text, json, actions: actions.map((a) => syncLogEntryView(a, names, targets, links)) };
  }

  /**
   * Routes a stored delivery again now, in the request (routing records actions; the relay enqueues them, as for
   * every other piece of work). Each replay has a number that keys the actions derived from the delivery apart from
   * earlier routings', so those run again; actions keyed by their fact stay the entries already recorded.
   */
  async replay(id: string, actor: AdminActor): Promise<{ sync_log_ids: string[]; replay: number }> {
    const row = await this.inbox.findWithBody(id);
    if (!row) throw notFound(id);
    const parsed = parseDelivery(row.endpoint, row.body);
    if (row.status === 'ignored' || parsed.kind === 'unknown') {
      throw new ConflictException({
        statusCode: 409,
        message: `delivery ${id} is an event crm-sync does not handle (${row.event ?? 'no event'}); replaying it would do nothing`,
        error: 'Conflict',
        status: row.status,
      });
    }
    if (row.status === 'received') {
      throw new ConflictException({
        statusCode: 409,
        message: `delivery ${id} has not been routed yet; the relay routes it shortly`,
        error: 'Conflict',
        status: row.status,
      });
    }
    if (parsed.kind === 'invalid') {
      throw new UnprocessableEntityException({
        statusCode: 422,
        message: `delivery ${id} is still not of the documented shape: ${parsed.reason}`,
        error: 'Unprocessable Entity',
      });
    }
    const replay = await this.inbox.countReplay(id);
    if (replay === null) throw new ConflictException({ statusCode: 409, message: `delivery ${id} changed meanwhile; try again`, error: 'Conflict' });
    let outcome;
    try {
      outcome = await this.router.replayStored(id, replay);
    } catch (err) {
      throw new BadGatewayException({
        statusCode: 502,
        message: `routing delivery ${id} failed: ${err instanceof Error ? err.message : String(err)}`,
        error: 'Bad Gateway',
      });
    }
    if (outcome.kind !== 'routed') throw new ConflictException({ statusCode: 409, message: `delivery ${id} could not be routed`, error: 'Conflict' });
    await this.audit.record(actor, {
      detail: `replayed delivery ${id} (${row.event ?? row.endpoint}, replay ${replay})`,
      projectId: row.projectId,
      payload: { inbox_id: id, replay, sync_log_ids: outcome.entryIds },
    });
    return { sync_log_ids: outcome.entryIds, replay };
  }

  async countRetryable(filter: FailedFilter): Promise<{ matching: number; would_retry: number; cap: number }> {
    const matching = await this.syncLog.countFailed(filter);
    return { matching, would_retry: Math.min(matching, BULK_RETRY_CAP), cap: BULK_RETRY_CAP };
  }

  /** Queues every matching failed entry again (the oldest `BULK_RETRY_CAP` of them), each as its own retry would. */
  async retryFailed(filter: FailedFilter, actor: AdminActor): Promise<{ retried: number; ids: string[]; cap: number; more: boolean }> {
    const candidates = await this.syncLog.findOldestFailedIds(filter, BULK_RETRY_CAP + 1);
    const more = candidates.length > BULK_RETRY_CAP;
    const ids = await this.syncLog.requeueMany(candidates.slice(0, BULK_RETRY_CAP));
    if (ids.length > 0) {
      this.relay.workWritten();
      await this.audit.record(actor, {
        detail: `retried ${ids.length} failed sync log entries`,
        crm: (filter.crm as 'appointment' | 'record' | undefined) ?? null,
        projectId: filter.projectId ?? null,
        payload: { filter: { ...filter, since: filter.since?.toISOString() }, count: ids.length },
      });
    }
    return { retried: ids.length, ids, cap: BULK_RETRY_CAP, more };
  }
}

function projectsCreated(rows: Array<{ crm: string; status: 'succeeded' | 'failed'; n: number }>): ProjectsCreatedView {
  const count = (crm: string | null, status: string) =>
    rows.filter((r) => r.status === status && (crm === null || r.crm === crm)).reduce((sum, r) => sum + r.n, 0);
  return {
    total: count(null, 'succeeded'),
    appointment: count('appointment', 'succeeded'),
    record: count('record', 'succeeded'),
    failed: count(null, 'failed'),
  };
}

function notFound(id: string): NotFoundException {
  return new NotFoundException({ statusCode: 404, message: `delivery ${id} not found`, error: 'Not Found' });
}
