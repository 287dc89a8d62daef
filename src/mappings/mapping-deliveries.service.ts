import { Injectable } from '@nestjs/common';
import { QUEUES } from '../queues/queues.js';
import type { ActionEntry, ActionOutcome } from '../actions/action.types.js';
import { RunsAction } from '../actions/runs-action.decorator.js';
import { DeliveryHandler, type DeliveryAction, type WebhookEventHandler } from '../actions/delivery-handler.js';
import type { RoutedDelivery } from '../domain/service-events.js';
import { ProjectsService } from '../projects/projects.service.js';
import { MappingRepository } from './mapping.repository.js';
import { MappingsService } from './mappings.service.js';

/**
 * `project.created` and `project.updated`: the project's name, customer and job number are kept (screens show
 * them). `project.created` for a project that has a pending mapping: associate it now instead of waiting for the
 * schedule, recorded as an action of its own, so the trigger survives a crash like any other work.
 */
@Injectable()
@DeliveryHandler()
export class MappingDeliveriesService implements WebhookEventHandler {
  readonly name = 'mappings';

  constructor(
    private readonly repository: MappingRepository,
    private readonly mappings: MappingsService,
    private readonly projects: ProjectsService,
  ) {}

  async actionsFor(delivery: RoutedDelivery): Promise<DeliveryAction[]> {
    if (delivery.event === 'project.created' || delivery.event === 'project.updated') {
      // Kept while routing (routing again stores the same facts): a name is no work to queue.
      await this.projects.remember([delivery.data], delivery.receivedAt);
    }
    if (delivery.event !== 'project.created' || !delivery.projectId) return [];
    const pending = await this.repository.countPending({ projectId: delivery.projectId });
    if (pending === 0) return [];
    return [{ kind: 'associate_project', crm: null, projectId: delivery.projectId, target: null, payload: { project_id: delivery.projectId } }];
  }

  @RunsAction('associate_project', { queue: QUEUES.service })
  async run(entry: ActionEntry<'associate_project'>): Promise<ActionOutcome> {
    const started = await this.mappings.associatePending(entry.trigger, { projectId: entry.payload.project_id });
    if (started.length === 0) return { status: 'skipped', detail: 'no pending mapping left to associate' };
    return { status: 'succeeded', detail: `association started: sync log ${started.map((e) => `#${e.id}`).join(', ')}` };
  }
}
