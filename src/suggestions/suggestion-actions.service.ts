import { Injectable } from '@nestjs/common';
import type { RoutedDelivery } from '../domain/service-events.js';
import type { MappingCrm } from '../mappings/mapping.row.js';
import { QUEUES } from '../queues/queues.js';
import type { ActionEntry, ActionOutcome } from '../actions/action.types.js';
import { DeliveryHandler, type DeliveryAction, type WebhookEventHandler } from '../actions/delivery-handler.js';
import { RunsAction } from '../actions/runs-action.decorator.js';
import { describeCandidate, SuggestionsService } from './suggestions.service.js';

/**
 * `project.created` / `project.updated` (and the full pass's sweep of P1, which routes made-up `project.updated`) of a
 * project unmapped in a CRM: a `suggest_mapping` action on that CRM's queue looks for its records. With `auto_accept`
 * and exactly one candidate, an `auto_map` action maps it.
 */
@Injectable()
@DeliveryHandler()
export class SuggestionActionsService implements WebhookEventHandler {
  readonly name = 'suggestions';

  constructor(private readonly suggestions: SuggestionsService) {}

  async actionsFor(delivery: RoutedDelivery): Promise<DeliveryAction[]> {
    if (delivery.event !== 'project.created' && delivery.event !== 'project.updated') return [];
    const { id, customer, job_number } = delivery.data;
    return this.suggestions.looksFor(id, { job_number: job_number ?? null, email: customer?.email ?? null, phone: customer?.phone ?? null });
  }

  @RunsAction('suggest_mapping', { crm: 'appointment', queue: QUEUES.appointmentCrm })
  suggestAppointments(entry: ActionEntry<'suggest_mapping'>): Promise<ActionOutcome> {
    return this.suggest('appointment', entry);
  }

  @RunsAction('suggest_mapping', { crm: 'record', queue: QUEUES.recordCrm })
  suggestRecords(entry: ActionEntry<'suggest_mapping'>): Promise<ActionOutcome> {
    return this.suggest('record', entry);
  }

  @RunsAction('auto_map', { queue: QUEUES.service })
  async autoMap(entry: ActionEntry<'auto_map'>): Promise<ActionOutcome> {
    const { suggestion_id, candidate } = entry.payload;
    const outcome = await this.suggestions.accept(suggestion_id, candidate, { trigger: entry.trigger, actor: null });
    switch (outcome.kind) {
      case 'accepted':
        return {
          status: 'succeeded',
          detail: `mapping ${outcome.mapping.id} made without review: ${describeCandidate(outcome.candidate)} to project ${outcome.mapping.projectId}`,
        };
      case 'missing':
        return { status: 'skipped', detail: `suggestion ${suggestion_id} is gone` };
      case 'not_open':
        return { status: 'skipped', detail: `suggestion ${suggestion_id} is ${outcome.status} already` };
      default:
        return { status: 'skipped', detail: `suggestion ${suggestion_id} not mapped: ${outcome.message}` };
    }
  }

  private async suggest(crm: MappingCrm, entry: ActionEntry<'suggest_mapping'>): Promise<ActionOutcome> {
    const { project_id, job_number, email, phone } = entry.payload;
    const result = await this.suggestions.look(crm, project_id, { job_number, email, phone });
    if ('skipped' in result) return { status: 'skipped', detail: result.skipped };
    const { suggestion, keys } = result;
    const found = suggestion.candidates;
    if (found.length === 0) return { status: 'succeeded', detail: `no record matched on ${keys.join(', ')}` };
    const detail = `suggestion ${suggestion.id}: ${found.length} candidate(s): ${found.map(describeCandidate).join('; ')}`;
    if (found.length !== 1 || !(await this.suggestions.autoAccepts(crm))) return { status: 'succeeded', detail };
    const [only] = found;
    return {
      status: 'succeeded',
      detail: `${detail}; auto_accept: mapped without review`,
      next: [
        {
          kind: 'auto_map',
          crm,
          projectId: project_id,
          target: only.module ? `${only.module}/${only.id}` : only.id,
          payload: { suggestion_id: suggestion.id, candidate: only.id, matched_on: only.matched_on },
        },
      ],
    };
  }
}
