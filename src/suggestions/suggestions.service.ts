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
import { ProjectsService } from '../projects/projects.service.js';
import { CandidateSearchService, type ProjectSide } from './candidate-search.service.js';
import { isStrong, lookedFor, matchedKeys, namesAlike, usableKeys, type MatchValues } from './match-keys.js';
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
  | { kind: 'conflict'; message: string }
  /** The project's or the record's values changed since the look: marked `changed`, not mapped. */
  | { kind: 'changed'; message: string }
  /** auto_map only: the match is not strong (any more), or auto_accept is off now; left open for a person. */
  | { kind: 'left_for_review'; message: string };

/** Who accepts: a person (`trigger` admin) or auto_accept (`auto`: the match must be strong and auto_accept still on). */
export interface Acceptor {
  trigger: SyncTrigger;
  actor: string | null;
  auto?: boolean;
}

const CONNECTION: Record<MappingCrm, 'appointment_crm' | 'record_crm'> = { appointment: 'appointment_crm', record: 'record_crm' };

/**
 * Suggested mappings (docs/mappings.md): for an unmapped project, the records of each connected CRM with its job
 * number, customer e-mail or phone (as that CRM's `match_on` says), one look per project unless what it is matched
 * on changes; a person accepts (the mapping is made and associated) or dismisses; `auto_accept` maps a lone candidate
 * whose match is strong. Accepting reads both sides again first.
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
    private readonly projects: ProjectsService,
  ) {}

  /** The `suggest_mapping` actions a project's event calls for: one per CRM that has something new to look for. */
  async looksFor(projectId: string, values: MatchValues, customerName: string | null): Promise<DeliveryAction[]> {
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
        payload: { project_id: projectId, ...values, customer_name: customerName, looked_for: look.lookedFor },
        // The same look for the same project is one action, however many events (or sweeps) ask for it.
        dedupeKey: `suggest_mapping:${crm}:${projectId}:${createHash('sha256').update(look.lookedFor).digest('hex').slice(0, 16)}`,
      });
    }
    return actions;
  }

  /** Runs one look (one search per key); skipped when there is nothing to do (mapped meanwhile, decided, nothing to match on). */
  async look(
    crm: MappingCrm,
    projectId: string,
    values: MatchValues,
    customerName: string | null,
  ): Promise<{ suggestion: MappingSuggestion; keys: MatchKey[] } | { skipped: string }> {
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
    const project: ProjectSide = { projectId, values, customerName };
    const found = crm === 'appointment' ? await this.candidates.appointments(look.keys, project) : await this.recordLook(look.keys, project);
    const suggestion = await this.repository.saveLook(projectId, crm, look.lookedFor, found);
    if (!suggestion) return { skipped: `the suggestion of project ${projectId} in the ${crm} CRM was decided already` };
    return { suggestion, keys: look.keys };
  }

  /** The customer's name a look compares: the entry's, or (an entry recorded before it was kept) what crm-sync knows. */
  async customerNameOf(payload: { project_id: string; customer_name?: string | null }): Promise<string | null> {
    if (payload.customer_name !== undefined) return payload.customer_name;
    return (await this.projects.known([payload.project_id], false)).get(payload.project_id)?.customer.name ?? null;
  }

  async autoAccepts(crm: MappingCrm): Promise<boolean> {
    return (crm === 'appointment' ? await this.settings.appointmentCrm() : await this.settings.recordCrm()).auto_accept;
  }

  /**
   * Makes the mapping of a candidate (the only one when none is named) and starts its association, after reading both
   * sides again: the project (P4) and the record must still match as they did when found, else the suggestion is
   * marked `changed` and nothing is mapped. Without review (`auto`), the match must also be strong now, on the only
   * candidate, and the CRM's auto_accept still on.
   */
  async accept(id: string, candidateId: string | null, by: Acceptor): Promise<AcceptOutcome> {
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
    const check = await this.recheck(suggestion, candidate, by.auto === true);
    if (check.kind === 'changed') {
      await this.repository.decide(id, 'changed', by.actor);
      return check;
    }
    if (check.kind === 'left_for_review') return check;
    const result = await this.mappings.create(mappingInput(suggestion, candidate), 'suggestion');
    if (result.status === 'conflict') return { kind: 'conflict', message: result.error };
    const decided = (await this.repository.decide(id, 'accepted', by.actor, result.mapping.id)) ?? suggestion;
    await this.mappings.associatePending(by.trigger, { projectId: suggestion.projectId, crm: suggestion.crm, actor: by.actor ?? undefined });
    return { kind: 'accepted', mapping: result.mapping, candidate, suggestion: decided };
  }

  /** Whether a candidate may be mapped now: both sides read again, matched as when found (and strongly, without review). */
  private async recheck(
    suggestion: MappingSuggestion,
    candidate: Candidate,
    auto: boolean,
  ): Promise<{ kind: 'holds' } | { kind: 'changed'; message: string } | { kind: 'left_for_review'; message: string }> {
    const facts = await this.projects.current(suggestion.projectId);
    const values: MatchValues = { job_number: facts.jobNumber, email: facts.customer.email, phone: facts.customer.phone };
    const jobNumberField = suggestion.crm === 'record' ? (await this.settings.recordCrm()).match_fields.job_number : undefined;
    const record =
      suggestion.crm === 'appointment'
        ? await this.candidates.appointmentNow(candidate.id)
        : await this.candidates.recordNow(candidate.module!, candidate.id, jobNumberField);
    const what = `${candidate.module ? `${candidate.module}/` : ''}${candidate.id}`;
    if (!record) return { kind: 'changed', message: `${what} is gone (or closed) since it was found` };
    const matched = matchedKeys(candidate.matched_on, values, record);
    const alike = namesAlike(facts.customer.name, record.name);
    if (matched.length !== candidate.matched_on.length || alike !== (candidate.names_alike ?? alike)) {
      const lost = candidate.matched_on.filter((key) => !matched.includes(key));
      return {
        kind: 'changed',
        message: `the values changed since the look: project ${suggestion.projectId} and ${what} ${
          lost.length > 0 ? `no longer match on ${lost.join(', ')}` : `no longer have alike names`
        }`,
      };
    }
    if (!auto) return { kind: 'holds' };
    if (!(await this.autoAccepts(suggestion.crm))) return { kind: 'left_for_review', message: `auto_accept is off in the ${suggestion.crm} CRM now` };
    if (suggestion.candidates.length !== 1) return { kind: 'left_for_review', message: `${suggestion.candidates.length} candidates` };
    const sharedNow = await this.candidates.sharedWithProjects({ projectId: suggestion.projectId, values, customerName: facts.customer.name }, matched);
    const strength = { matched_on: matched, shared_on: [...new Set([...(candidate.shared_on ?? []), ...sharedNow])], names_alike: alike };
    if (!isStrong(strength)) {
      return { kind: 'left_for_review', message: `the match is not strong enough to map without review (${describeStrength(strength)})` };
    }
    return { kind: 'holds' };
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

  private async recordLook(keys: MatchKey[], project: ProjectSide): Promise<Candidate[]> {
    const settings = await this.settings.recordCrm();
    return this.candidates.records(settings.module, settings.match_fields.job_number, keys, project);
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

/** What a match is made of, in words: `matched on email, phone; phone shared; names not alike`. */
export function describeStrength(c: { matched_on: MatchKey[]; shared_on?: MatchKey[]; names_alike?: boolean }): string {
  const shared = c.shared_on ?? [];
  return [
    `matched on ${c.matched_on.join(', ')}`,
    ...(shared.length > 0 ? [`${shared.join(', ')} held by another project or record too`] : []),
    c.names_alike ? 'names alike' : 'names not alike',
  ].join('; ');
}
