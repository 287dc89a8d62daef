import { Injectable } from '@nestjs/common';
import type { RoutedDelivery } from '../domain/service-events.js';
import type { MappingCrm } from '../mappings/mapping.row.js';
import { QUEUES } from '../queues/queues.js';
import type { ActionEntry, ActionOutcome } from '../actions/action.types.js';
import { DeliveryHandler, type DeliveryAction, type WebhookEventHandler } from '../actions/delivery-handler.js';
import { RunsAction } from '../actions/runs-action.decorator.js';
import { isStrong } from './match-keys.js';
import { describeCandidate, describeStrength, SuggestionsService } from './suggestions.service.js';

/**
 * `project.created` / `project.updated` (and the full pass's sweep of P1, which routes made-up `project.updated`) of a
 * project unmapped in a CRM: a `suggest_mapping` action on that CRM's queue looks for its records. With `auto_accept`
 * and exactly one candidate whose match is strong (match-keys.ts `isStrong`), an `auto_map` action maps it after
 * reading both sides again.
 */
@Injectable()
@DeliveryHandler()
export class SuggestionActionsService implements WebhookEventHandler {
  readonly name = 'suggestions';

  constructor(private readonly suggestions: SuggestionsService) {}

  async actionsFor(delivery: RoutedDelivery): Promise<DeliveryAction[]> {
    if (delivery.event !== 'project.created' && delivery.event !== 'project.updated') return [];
    const { id, customer, job_number } = delivery.data;
    return this.suggestions.looksFor(
      id,
      { job_number: job_number ?? null, email: customer?.email ?? null, phone: customer?.phone ?? null },
      customer?.name ?? null,
    );
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
    const outcome = await this.suggestions.accept(suggestion_id, candidate, { trigger: entry.trigger, actor: null, auto: true });
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
      case 'changed':
        return { status: 'skipped', detail: `suggestion ${suggestion_id} not mapped, marked changed: ${outcome.message}` };
      case 'left_for_review':
        return { status: 'skipped', detail: `suggestion ${suggestion_id} left for review: ${outcome.message}` };
      default:
        return { status: 'skipped', detail: `suggestion ${suggestion_id} not mapped: ${outcome.message}` };
    }
  }

  private async suggest(crm: MappingCrm, entry: ActionEntry<'suggest_mapping'>): Promise<ActionOutcome> {
    const { project_id, job_number, email, phone } = entry.payload;
    const result = await this.suggestions.look(crm, project_id, { job_number, email, phone }, await this.suggestions.customerNameOf(entry.payload));
    if ('skipped' in result) return { status: 'skipped', detail: result.skipped };
    const { suggestion, keys } = result;
    const found = suggestion.candidates;
    if (found.length === 0) return { status: 'succeeded', detail: `no record matched on ${keys.join(', ')}` };
    const detail = `suggestion ${suggestion.id}: ${found.length} candidate(s): ${found.map(describeCandidate).join('; ')}`;
    if (!(await this.suggestions.autoAccepts(crm))) return { status: 'succeeded', detail };
    if (found.length !== 1) return { status: 'succeeded', detail: `${detail}; auto_accept: left for review (several candidates)` };
    const [only] = found;
    if (!isStrong({ matched_on: only.matched_on, shared_on: only.shared_on ?? [], names_alike: only.names_alike === true })) {
      return { status: 'succeeded', detail: `${detail}; auto_accept: left for review, not a strong match (${describeStrength(only)})` };
    }
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
