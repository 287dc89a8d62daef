import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { AutomationSettingsService } from '../crm-settings/automation-settings.service.js';
import type { MatchKey } from '../crm-settings/automation-settings.js';
import { ConnectionsService } from '../connections/connections.service.js';
import type { SyncTrigger } from '../domain/actions.js';
import type { MappingInput } from '../mappings/dto/mapping-input.dto.js';
import type { Mapping, MappingCrm } from '../mappings/mapping.row.js';
import { MappingLookupService } from '../mappings/mapping-lookup.service.js';
import { MappingsService } from '../mappings/mappings.service.js';
import type { DeliveryAction } from '../actions/delivery-handler.js';
import { CandidateSearchService } from './candidate-search.service.js';
import { lookedFor, usableKeys, type MatchValues } from './match-keys.js';
import type { Candidate, MappingSuggestion } from './suggestion.row.js';
import { SuggestionRepository } from './suggestion.repository.js';

/** What one CRM's settings make of a project: the keys to look on and what the look is made of. */
interface Look {
  crm: MappingCrm;
  keys: MatchKey[];
  lookedFor: string;
}

export type AcceptOutcome =
  | { kind: 'accepted'; mapping: Mapping; candidate: Candidate; suggestion: MappingSuggestion }
  | { kind: 'missing' }
  | { kind: 'not_open'; status: string }
  | { kind: 'bad_candidate'; message: string }
  | { kind: 'conflict'; message: string };

const CONNECTION: Record<MappingCrm, 'appointment_crm' | 'record_crm'> = { appointment: 'appointment_crm', record: 'record_crm' };

/**
 * Suggested mappings (docs/mappings.md): for an unmapped project, the records of each connected CRM with its job
 * number, customer e-mail or phone (as that CRM's `match_on` says), one look per project unless what it is matched
 * on changes; a person accepts (the mapping is made and associated) or dismisses; `auto_accept` maps a lone candidate.
 */
@Injectable()
export class SuggestionsService {
  constructor(
    private readonly repository: SuggestionRepository,
    private readonly settings: AutomationSettingsService,
    private readonly connections: ConnectionsService,
    private readonly lookup: MappingLookupService,
    private readonly mappings: MappingsService,
    private readonly candidates: CandidateSearchService,
  ) {}

  /** The `suggest_mapping` actions a project's event calls for: one per CRM that has something new to look for. */
  async looksFor(projectId: string, values: MatchValues): Promise<DeliveryAction[]> {
    const actions: DeliveryAction[] = [];
    for (const crm of ['appointment', 'record'] as const) {
      const look = await this.lookOf(crm, values);
      if (!look || !(await this.connections.get(CONNECTION[crm])) || (await this.mappingOf(crm, projectId))) continue;
      const known = await this.repository.find(projectId, crm);
      if (known && (known.status === 'accepted' || known.status === 'dismissed' || known.lookedFor === look.lookedFor)) continue;
      actions.push({
        kind: 'suggest_mapping',
        crm,
        projectId,
        target: null,
        payload: { project_id: projectId, ...values, looked_for: look.lookedFor },
        // The same look for the same project is one action, however many events (or sweeps) ask for it.
        dedupeKey: `suggest_mapping:${crm}:${projectId}:${createHash('sha256').update(look.lookedFor).digest('hex').slice(0, 16)}`,
      });
    }
    return actions;
  }

  /** Runs one look (one search per key); skipped when there is nothing to do (mapped meanwhile, decided, nothing to match on). */
  async look(crm: MappingCrm, projectId: string, values: MatchValues): Promise<{ suggestion: MappingSuggestion; keys: MatchKey[] } | { skipped: string }> {
    if (await this.mappingOf(crm, projectId)) {
      await this.repository.closeMapped();
      return { skipped: `project ${projectId} is mapped in the ${crm} CRM already` };
    }
    const look = await this.lookOf(crm, values);
    if (!look) return { skipped: `nothing to match project ${projectId} on in the ${crm} CRM (match_on, and the project's values)` };
    const known = await this.repository.find(projectId, crm);
    if (known && (known.status === 'accepted' || known.status === 'dismissed')) {
      return { skipped: `the suggestion of project ${projectId} in the ${crm} CRM was ${known.status} already` };
    }
    const found = crm === 'appointment' ? await this.candidates.appointments(look.keys, values) : await this.recordLook(look.keys, values);
    const suggestion = await this.repository.saveLook(projectId, crm, look.lookedFor, found);
    if (!suggestion) return { skipped: `the suggestion of project ${projectId} in the ${crm} CRM was decided already` };
    return { suggestion, keys: look.keys };
  }

  async autoAccepts(crm: MappingCrm): Promise<boolean> {
    return (crm === 'appointment' ? await this.settings.appointmentCrm() : await this.settings.recordCrm()).auto_accept;
  }

  /** Makes the mapping of a candidate (the only one when none is named) and starts its association. */
  async accept(id: string, candidateId: string | null, by: { trigger: SyncTrigger; actor: string | null }): Promise<AcceptOutcome> {
    await this.repository.closeMapped();
    const suggestion = await this.repository.findById(id);
    if (!suggestion) return { kind: 'missing' };
    if (suggestion.status !== 'open') return { kind: 'not_open', status: suggestion.status };
    const candidate =
      candidateId === null
        ? suggestion.candidates.length === 1
          ? suggestion.candidates[0]
          : undefined
        : suggestion.candidates.find((c) => c.id === candidateId);
    if (!candidate) {
      const ids = suggestion.candidates.map((c) => c.id).join(', ');
      return { kind: 'bad_candidate', message: candidateId === null ? `candidate is required: one of ${ids}` : `candidate must be one of ${ids}` };
    }
    const result = await this.mappings.create(mappingInput(suggestion, candidate), 'suggestion');
    if (result.status === 'conflict') return { kind: 'conflict', message: result.error };
    const decided = (await this.repository.decide(id, 'accepted', by.actor, result.mapping.id)) ?? suggestion;
    await this.mappings.associatePending(by.trigger, { projectId: suggestion.projectId, crm: suggestion.crm, actor: by.actor ?? undefined });
    return { kind: 'accepted', mapping: result.mapping, candidate, suggestion: decided };
  }

  /** Closes an open suggestion for good; null when there is none, its status when it is not open. */
  async dismiss(id: string, actor: string): Promise<MappingSuggestion | { notOpen: string } | null> {
    const dismissed = await this.repository.decide(id, 'dismissed', actor);
    if (dismissed) return dismissed;
    const suggestion = await this.repository.findById(id);
    return suggestion ? { notOpen: suggestion.status } : null;
  }

  async list(filter: { status?: MappingSuggestion['status']; limit: number; cursor?: string }): Promise<MappingSuggestion[]> {
    await this.repository.closeMapped();
    return this.repository.list(filter);
  }

  private async lookOf(crm: MappingCrm, values: MatchValues): Promise<Look | null> {
    if (crm === 'appointment') {
      const settings = await this.settings.appointmentCrm();
      const keys = usableKeys(settings.match_on, values);
      return keys.length > 0 ? { crm, keys, lookedFor: lookedFor(keys, values) } : null;
    }
    const settings = await this.settings.recordCrm();
    const field = settings.match_fields.job_number;
    const keys = usableKeys(settings.match_on, values).filter((k) => k !== 'job_number' || field);
    return keys.length > 0 ? { crm, keys, lookedFor: `${settings.module}:${lookedFor(keys, values, field)}` } : null;
  }

  private async recordLook(keys: MatchKey[], values: MatchValues): Promise<Candidate[]> {
    const settings = await this.settings.recordCrm();
    return this.candidates.records(settings.module, settings.match_fields.job_number, keys, values);
  }

  private mappingOf(crm: MappingCrm, projectId: string): Promise<Mapping | null> {
    return crm === 'appointment' ? this.lookup.appointmentOfProject(projectId) : this.lookup.recordOfProject(projectId);
  }
}

function mappingInput(suggestion: MappingSuggestion, candidate: Candidate): MappingInput {
  return suggestion.crm === 'appointment'
    ? {
        crm: 'appointment',
        appointmentId: candidate.id,
        recordCrmModule: null,
        recordCrmRecordId: null,
        projectId: suggestion.projectId,
        crmRecordName: candidate.name,
      }
    : {
        crm: 'record',
        appointmentId: null,
        recordCrmModule: candidate.module,
        recordCrmRecordId: candidate.id,
        projectId: suggestion.projectId,
        crmRecordName: candidate.name,
      };
}

/** One line about a candidate: `Ana Ruiz (APT-1) on email, phone`. */
export function describeCandidate(c: Candidate): string {
  return `${c.name ?? 'no name'} (${c.module ? `${c.module}/` : ''}${c.id}) on ${c.matched_on.join(', ')}`;
}
