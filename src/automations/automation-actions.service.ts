import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { AutomatedRecord, CrmName } from '../domain/actions.js';
import type { Mapping } from '../mappings/mapping.row.js';
import { MappingLookupService } from '../mappings/mapping-lookup.service.js';
import { MappingsService } from '../mappings/mappings.service.js';
import type { MappingInput } from '../mappings/dto/mapping-input.dto.js';
import { QUEUES } from '../queues/queues.js';
import { PermanentActionError, type ActionEntry, type ActionOutcome } from '../actions/action.types.js';
import { RunsAction } from '../actions/runs-action.decorator.js';
import { SyncLogRepository } from '../sync-log/sync-log.repository.js';
import { AutomationPollerService, type PollOutcome } from './automation-poller.service.js';
import { ProjectCreationService, type ProjectFound } from './project-creation.service.js';

const CRM_LABEL: Record<CrmName, string> = { appointment: 'appointment CRM', record: 'record CRM' };

/** The automations' sync actions: a read of a CRM's changes asked for now, a record's project, their association. */
@Injectable()
export class AutomationActionsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly poller: AutomationPollerService,
    private readonly projects: ProjectCreationService,
    private readonly lookup: MappingLookupService,
    private readonly mappings: MappingsService,
    private readonly syncLog: SyncLogRepository,
  ) {}

  @RunsAction('poll_changes', { crm: 'appointment', queue: QUEUES.appointmentCrm })
  async pollAppointments(entry: ActionEntry<'poll_changes'>): Promise<ActionOutcome> {
    return pollOutcome('appointment', await this.poller.poll('appointment', entry.id));
  }

  @RunsAction('poll_changes', { crm: 'record', queue: QUEUES.recordCrm })
  async pollRecords(entry: ActionEntry<'poll_changes'>): Promise<ActionOutcome> {
    return pollOutcome('record', await this.poller.poll('record', entry.id));
  }

  /**
   * One record's project, once: nothing when the record is mapped (by anyone, any way); the project an earlier try
   * created, found by P5 on its name (on a later run, or when P2 says the name is taken); else P2. Then the mapping (source `automation`), associated by the entry that
   * follows, which gathers the mappings made meanwhile.
   */
  @RunsAction('create_project', { queue: QUEUES.service })
  async createProject(entry: ActionEntry<'create_project'>): Promise<ActionOutcome> {
    const { record, name } = entry.payload;
    if (!record?.id || !name) throw new PermanentActionError('payload names no record or no project name');
    const where = describeRecord(record);
    const mapped = await this.mappingOf(record);
    if (mapped && mapped.source !== 'automation') {
      return { status: 'skipped', detail: `${where} is mapped already (to project ${mapped.projectId}, by ${mapped.source}): no project created` };
    }
    if (mapped) return this.created(record, `${where} has its project ${mapped.projectId} and its mapping ${mapped.id} already (an earlier try)`);

    const found = await this.projects.findOrCreate(entry.payload, entry.attempts <= 1, new Date(entry.createdAt));
    // The project view lists the entry that made the project.
    await this.syncLog.setProject(entry.id, found.project.id);
    const mapping = await this.map(record, found);
    return this.created(record, `${describeFound(found)} for ${where}; mapping ${mapping.id}`);
  }

  @RunsAction('associate_automated', { queue: QUEUES.service })
  async associate(entry: ActionEntry<'associate_automated'>): Promise<ActionOutcome> {
    const started = await this.mappings.associatePending(entry.trigger, entry.crm ? { crm: entry.crm } : {});
    if (started.length === 0) return { status: 'skipped', detail: 'no pending mapping left to associate' };
    return { status: 'succeeded', detail: `association started: sync log ${started.map((e) => `#${e.id}`).join(', ')}` };
  }

  private created(record: AutomatedRecord, detail: string): ActionOutcome {
    return {
      status: 'succeeded',
      detail,
      next: [
        {
          kind: 'associate_automated',
          crm: record.crm,
          projectId: null,
          target: null,
          payload: {},
          coalesceKey: `associate_automated:${record.crm}`,
          delayMs: this.config.automationAssociateGatherMs,
        },
      ],
    };
  }

  private mappingOf(record: AutomatedRecord): Promise<Mapping | null> {
    return record.crm === 'appointment' ? this.lookup.appointment(record.id) : this.lookup.record(record.module, record.id);
  }

  private async map(record: AutomatedRecord, found: ProjectFound): Promise<Mapping> {
    const input: MappingInput =
      record.crm === 'appointment'
        ? { crm: 'appointment', appointmentId: record.id, recordCrmModule: null, recordCrmRecordId: null, projectId: found.project.id }
        : { crm: 'record', appointmentId: null, recordCrmModule: record.module, recordCrmRecordId: record.id, projectId: found.project.id };
    const result = await this.mappings.create(input, 'automation');
    if (result.status === 'created') return result.mapping;
    const same = result.existing?.projectId === found.project.id && result.existing.source === 'automation';
    if (same && result.existing) return result.existing;
    // Mapped by someone else between the check and now: the project stays, unmapped, and the entry says so.
    throw new PermanentActionError(`project ${found.project.id} "${found.project.name}" is on the service, but it could not be mapped: ${result.error}`);
  }
}

function pollOutcome(crm: CrmName, outcome: PollOutcome): ActionOutcome {
  if (outcome.state === 'off') return { status: 'skipped', detail: `project creation is off for the ${CRM_LABEL[crm]}: nothing read` };
  if (outcome.state === 'busy') return { status: 'skipped', detail: `another read of the ${CRM_LABEL[crm]}'s changes is running; it reads them` };
  return {
    status: 'succeeded',
    detail:
      `${outcome.changed} change(s) read in ${outcome.pages} page(s), ${outcome.qualified} qualifying, ` +
      `${outcome.created} project(s) to create; ` +
      (outcome.more ? 'more to read: the next read goes on from here' : `read up to ${outcome.cursor ?? 'the start'}`),
  };
}

function describeRecord(record: AutomatedRecord): string {
  return record.crm === 'appointment' ? `appointment ${record.id}` : `${record.module}/${record.id}`;
}

function describeFound(found: ProjectFound): string {
  const project = `project ${found.project.id} "${found.project.name}"`;
  if (!found.created) return `${project} found by its name (created by an earlier try whose answer was lost)`;
  const refusal = found.salesRepRefused ? ` (the sales rep was refused as owner: ${found.salesRepRefused}; the default owner was used)` : '';
  return `${project} created, owner ${found.owner}${refusal}`;
}
