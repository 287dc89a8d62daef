import { Injectable, Logger } from '@nestjs/common';
import { MappingLookupService } from '../mappings/mapping-lookup.service.js';
import { ServiceApiClient } from '../service-api/service-api.client.js';
import type { RecordModule } from '../service-api/service-api.types.js';
import { ActionRecorderService, type RecordedAction } from '../actions/action-recorder.service.js';
import type { NewAction } from '../actions/action.types.js';
import { DeliveryHandlersService } from './delivery-handlers.service.js';
import { InboxRepository } from './inbox.repository.js';
import { parseDelivery, type ParsedDelivery } from './parse-delivery.js';
import type { RoutedDelivery } from '../domain/service-events.js';

/**
 * Turns a delivery into sync actions: asks every CRM module what it wants done, records those actions and marks
 * the delivery routed in one transaction, and the relay enqueues them. Routing the same delivery again (a crash, a lost
 * queue) records nothing new, because each action's dedupe key is derived from the delivery.
 */
@Injectable()
export class DeliveryRouterService {
  private readonly logger = new Logger(DeliveryRouterService.name);

  constructor(
    private readonly inbox: InboxRepository,
    private readonly handlers: DeliveryHandlersService,
    private readonly actions: ActionRecorderService,
    private readonly mappings: MappingLookupService,
    private readonly service: ServiceApiClient,
  ) {}

  /** Routes a stored delivery; false when it needs no routing (already routed, ignored, unknown). */
  async routeStored(inboxId: string): Promise<boolean> {
    const row = await this.inbox.forRouting(inboxId);
    if (!row || row.status !== 'received') return false;
    const parsed = parseDelivery(row.endpoint, row.body);
    if (parsed.kind !== 'valid') {
      await this.inbox.markFailed(inboxId, parsed.kind === 'invalid' ? parsed.reason : 'unknown event');
      return false;
    }
    await this.routeParsed(inboxId, row.receivedAt, parsed, 0);
    return true;
  }

  /**
   * An admin's replay (`POST /api/deliveries/:id/replay`): routes a stored delivery again, whatever its status, as
   * replay number `replay` (> 0). Actions keyed by the delivery get keys of their own (`inbox:<id>:r<n>`, and a
   * short id `<id36>r<n>`), so they run again; actions keyed by their fact (approvals, payments) stay the entries
   * already recorded. Answers every entry the routing named, new or existing.
   */
  async replayStored(inboxId: string, replay: number): Promise<ReplayOutcome> {
    const row = await this.inbox.forRouting(inboxId);
    if (!row) return { kind: 'missing' };
    const parsed = parseDelivery(row.endpoint, row.body);
    if (parsed.kind === 'invalid') return { kind: 'invalid', reason: parsed.reason };
    if (parsed.kind === 'unknown') return { kind: 'unknown', reason: `unknown event ${parsed.event}` };
    const recorded = await this.routeParsed(inboxId, row.receivedAt, parsed, replay);
    return { kind: 'routed', entryIds: recorded.map((r) => r.entry.id) };
  }

  private async routeParsed(inboxId: string, receivedAt: Date, parsed: ParsedDelivery & { kind: 'valid' }, replay: number): Promise<RecordedAction[]> {
    const delivery = {
      trigger: 'webhook',
      inboxId,
      receivedAt,
      shortId: shortIdOf(inboxId) + (replay > 0 ? `r${replay}` : ''),
      event: parsed.event,
      data: parsed.data,
      projectId: null,
    } as RoutedDelivery;
    delivery.projectId = await this.projectOf(delivery);
    const wanted = await this.actionsFor(delivery, replay);
    // The project is kept on the delivery, in the statement that marks it routed, so a project's deliveries are found by index.
    return this.actions.record(wanted, { routedInboxId: inboxId, routedProjectId: delivery.projectId });
  }

  /** Routes a made-up delivery (reconciliation); returns how many actions it created (the rest existed). */
  async routeSynthetic(delivery: RoutedDelivery): Promise<number> {
    delivery.projectId ??= await this.projectOf(delivery);
    return this.submitCounting(await this.actionsFor(delivery));
  }

  /** Reconciliation: each CRM module's repair of its own drift for one project; returns how many actions were created. */
  async reconcileProject(projectId: string): Promise<number> {
    const wanted: NewAction[] = [];
    for (const handler of this.handlers.all()) {
      for (const action of (await handler.reconcileProject?.(projectId)) ?? []) wanted.push({ ...action, trigger: 'reconcile' });
    }
    return this.submitCounting(wanted);
  }

  private async submitCounting(actions: NewAction[]): Promise<number> {
    const recorded = await this.actions.record(actions);
    return recorded.filter((r) => r.created).length;
  }

  private async actionsFor(delivery: RoutedDelivery, replay = 0): Promise<NewAction[]> {
    const origin = delivery.inboxId ? `inbox:${delivery.inboxId}${replay > 0 ? `:r${replay}` : ''}` : `reconcile:${delivery.event}:${delivery.shortId}`;
    const out: NewAction[] = [];
    for (const handler of this.handlers.all()) {
      const wanted = await handler.actionsFor(delivery);
      wanted.forEach((action, i) =>
        out.push({
          ...action,
          trigger: delivery.trigger,
          inboxId: delivery.inboxId ?? undefined,
          dedupeKey: action.dedupeKey ?? `${origin}:${handler.name}:${i}`,
        }),
      );
    }
    if (out.length === 0 && delivery.trigger === 'webhook') {
      out.push({
        kind: 'route_delivery',
        trigger: 'webhook',
        crm: null,
        projectId: delivery.projectId,
        target: null,
        status: 'skipped',
        detail: `no CRM acts on ${delivery.event}${delivery.projectId ? ` for project ${delivery.projectId}` : ''}`,
        inboxId: delivery.inboxId ?? undefined,
        dedupeKey: `${origin}:unrouted`,
      });
    }
    return out;
  }

  /** The project a delivery concerns. A payment names only its drawing, so the drawing is read (D1). */
  private async projectOf(delivery: RoutedDelivery): Promise<string | null> {
    switch (delivery.event) {
      case 'project.created':
      case 'project.updated':
        return delivery.data.id;
      case 'proposal.payment.received':
        return (await this.service.getDrawing(delivery.data.drawing_id)).project_id;
      case 'record_crm.export_prompt': {
        if (delivery.data.project_id) return delivery.data.project_id;
        const mapping = await this.mappings.record(delivery.data.record_crm_module as RecordModule, delivery.data.record_crm_record_id);
        return mapping?.projectId ?? null;
      }
      default:
        return delivery.data.project_id;
    }
  }
}

export type ReplayOutcome =
  { kind: 'routed'; entryIds: string[] } | { kind: 'missing' } | { kind: 'invalid'; reason: string } | { kind: 'unknown'; reason: string };

/** Short and unique per delivery: the inbox id in base 36. */
export function shortIdOf(inboxId: string): string {
  return BigInt(inboxId).toString(36);
}
