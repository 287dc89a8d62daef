import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DatabaseService } from '../database/database.service.js';
import { ActionRecorderService } from '../actions/action-recorder.service.js';
import type { NewAction } from '../actions/action.types.js';
import type { SyncTrigger } from '../domain/actions.js';
import type { SyncLogEntry } from '../sync-log/sync-log.row.js';
import type { MappingInput } from './dto/mapping-input.dto.js';
import type { Mapping, MappingCrm, MappingSource, MappingStatus } from './mapping.row.js';
import { MappingRepository } from './mapping.repository.js';
import { describeMapping } from './mapping.view.js';

/** A2 takes at most 100 pairs per call. */
export const A2_CHUNK = 100;
/** How many record mappings one claiming transaction takes (each becomes its own C1 action). */
const RECORD_CLAIM_CHUNK = 100;

export type CreateResult = { status: 'created'; mapping: Mapping } | { status: 'conflict'; existing: Mapping | null; error: string };

export interface MappingFilter {
  crm?: MappingCrm;
  status?: MappingStatus;
  projectId?: string;
  limit: number;
  /** The id of the last mapping of the previous page. */
  cursor?: string;
}

export interface AssociateFilter {
  /** Only this project's pending mappings (a `project.created` event). */
  projectId?: string;
  /** Only this CRM's. */
  crm?: MappingCrm;
  /** The admin who started it (recorded on the actions). */
  actor?: string;
}

/** Payload of an `associate` action: the mappings it sends (A2 chunk, or the one record for C1). */
export interface AssociatePayload {
  mapping_ids: string[];
}

const keyOf = (m: { crm: string; appointmentId: string | null; recordCrmModule: string | null; recordCrmRecordId: string | null; projectId: string }): string =>
  [m.crm, m.appointmentId ?? '', m.recordCrmModule ?? '', m.recordCrmRecordId ?? '', m.projectId].join('\u0000');

/**
 * Mappings: creating them (one, many, or an import), listing and removing them, and starting their association with
 * the service. Association runs as `associate` actions on the service queue (see MappingActionsService); this class only
 * claims pending mappings for them.
 */
@Injectable()
export class MappingsService {
  private readonly logger = new Logger(MappingsService.name);

  constructor(
    private readonly database: DatabaseService,
    private readonly mappings: MappingRepository,
    private readonly actions: ActionRecorderService,
  ) {}

  async create(input: MappingInput, source: MappingSource = 'admin'): Promise<CreateResult> {
    return (await this.createMany([input], source))[0];
  }

  /**
   * Inserts the inputs in one statement, each independently: those that collide with an existing mapping (or an
   * earlier input of the same call) are not inserted and come back as conflicts naming the mapping in the way.
   * Results are in input order.
   */
  async createMany(inputs: MappingInput[], source: MappingSource = 'admin'): Promise<CreateResult[]> {
    if (inputs.length === 0) return [];
    const rows = await this.mappings.insertMany(inputs, source);
    // RETURNING promises no order: match rows back to inputs by their content. Of equal inputs, the first one won.
    const created = new Map<string, Mapping[]>();
    for (const mapping of rows) {
      const key = keyOf(mapping);
      created.set(key, [...(created.get(key) ?? []), mapping]);
    }
    const results: Array<CreateResult | undefined> = inputs.map((input) => {
      const mapping = created.get(keyOf(input))?.shift();
      return mapping ? { status: 'created', mapping } : undefined;
    });
    const losers = inputs.map((input, i) => (results[i] ? null : input)).filter((i): i is MappingInput => i !== null);
    if (losers.length > 0) {
      const existing = await this.mappings.findConflicting(losers);
      inputs.forEach((input, i) => {
        if (results[i]) return;
        const other = existing.find((m) => collides(input, m)) ?? null;
        results[i] = {
          status: 'conflict',
          existing: other,
          error: other ? conflictMessage(input, other) : 'conflicts with a mapping that was removed meanwhile; try again',
        };
      });
    }
    return results as CreateResult[];
  }

  get(id: string): Promise<Mapping | null> {
    if (!/^\d{1,19}$/.test(id)) return Promise.resolve(null);
    return this.mappings.findById(id);
  }

  async list(filter: MappingFilter): Promise<{ items: Mapping[]; nextCursor: string | null }> {
    const rows = await this.mappings.list({ ...filter, limit: filter.limit + 1 });
    const items = rows.slice(0, filter.limit);
    return { items, nextCursor: rows.length > filter.limit ? items[items.length - 1].id : null };
  }

  /**
   * Removes a mapping; false when there was none. The service keeps any association already made (the spec has no
   * call to undo one); an association action still holding it simply finds it gone.
   */
  async remove(id: string): Promise<boolean> {
    if (!/^\d{1,19}$/.test(id)) return false;
    return this.mappings.delete(id);
  }

  countPending(filter: AssociateFilter = {}): Promise<number> {
    return this.mappings.countPending(filter);
  }

  /**
   * Starts the association of every pending mapping no action holds yet: appointment mappings in `associate` actions
   * of at most 100 (one A2 call each), record mappings one action each (C1). Each chunk is claimed in its own
   * transaction that records the action and sets `claimed_by` on rows taken FOR UPDATE SKIP LOCKED, so triggers
   * running at once (admin, schedule, `project.created`, on any replica) split the work and never send a mapping
   * twice. Returns the actions created. Callable by any module (webhooks, reconcile).
   */
  async associatePending(trigger: SyncTrigger, filter: AssociateFilter = {}): Promise<SyncLogEntry[]> {
    await this.releaseStaleClaims();
    const entries: SyncLogEntry[] = [];
    for (const crm of ['appointment', 'record'] as const) {
      if (filter.crm && filter.crm !== crm) continue;
      // Walks the pending index forwards: without `after`, every chunk would scan past the rows claimed so far.
      // Rows another trigger holds are skipped here and claimed by that one.
      let after = '0';
      for (;;) {
        const claimed = await this.database.transaction((manager) => this.claimChunk(manager, crm, trigger, filter.projectId ?? null, after, filter.actor));
        if (!claimed) break;
        after = claimed.lastId;
        const recorded = claimed.recorded;
        this.actions.committed(recorded);
        entries.push(...recorded.map((r) => r.entry));
      }
    }
    if (entries.length > 0) this.logger.log(`association started: ${entries.length} action(s) (${trigger})`);
    return entries;
  }

  /**
   * Gives back pending mappings held by an action that has finished (it failed for good, or ended without settling
   * them), so the next trigger takes them. The associate handler releases its claims when it gives up; this covers
   * whatever it could not (a crash, an unexpected error).
   *
   * Written so that a claim being made concurrently is never released: the entry must be visibly finished (a claim
   * committed meanwhile names an entry this statement cannot see, so EXISTS is false), and finished after the mapping
   * was claimed (an admin's retry re-claims with a newer updated_at than the entry's earlier finish).
   */
  async releaseStaleClaims(): Promise<number> {
    const released = await this.mappings.releaseClaimsOfFinishedEntries();
    if (released > 0) this.logger.log(`released ${released} pending mapping(s) held by finished actions`);
    return released;
  }

  private async claimChunk(manager: EntityManager, crm: MappingCrm, trigger: SyncTrigger, projectId: string | null, after: string, actor?: string) {
    const mappings = await this.mappings.lockUnclaimedPending(manager, crm, projectId, after, crm === 'appointment' ? A2_CHUNK : RECORD_CLAIM_CHUNK);
    if (mappings.length === 0) return null;
    const actions: NewAction[] =
      crm === 'appointment'
        ? [
            {
              kind: 'associate',
              trigger,
              crm,
              // A chunk spans many projects; only a single mapping names its project and appointment.
              projectId: mappings.length === 1 ? mappings[0].projectId : null,
              target: mappings.length === 1 ? mappings[0].appointmentId : null,
              payload: { mapping_ids: mappings.map((m) => m.id) } satisfies AssociatePayload,
              detail: `A2 for ${mappings.length} appointment mapping(s)`,
              ...(actor ? { actor } : {}),
            },
          ]
        : mappings.map((m) => ({
            kind: 'associate',
            trigger,
            crm,
            projectId: m.projectId,
            target: `${m.recordCrmModule}/${m.recordCrmRecordId}`,
            payload: { mapping_ids: [m.id] } satisfies AssociatePayload,
            ...(actor ? { actor } : {}),
          }));
    const recorded = await this.actions.record(actions, { manager });
    if (crm === 'appointment') {
      await this.mappings.claimForEntry(
        manager,
        recorded[0].entry.id,
        mappings.map((m) => m.id),
      );
    } else {
      await this.mappings.claimEach(
        manager,
        mappings.map((m) => m.id),
        recorded.map((r) => r.entry.id),
      );
    }
    return { recorded, lastId: mappings[mappings.length - 1].id };
  }
}

function collides(input: MappingInput, m: Mapping): boolean {
  if (input.crm !== m.crm) return false;
  if (input.projectId === m.projectId) return true;
  return input.crm === 'appointment'
    ? input.appointmentId === m.appointmentId
    : input.recordCrmModule === m.recordCrmModule && input.recordCrmRecordId === m.recordCrmRecordId;
}

function conflictMessage(input: MappingInput, m: Mapping): string {
  const same = keyOf(input) === keyOf(m);
  if (same) return `this mapping exists already: ${describeMapping(m)}`;
  const clash =
    input.crm === 'appointment' && input.appointmentId === m.appointmentId
      ? `appointment ${input.appointmentId} is already mapped`
      : input.crm === 'record' && input.recordCrmModule === m.recordCrmModule && input.recordCrmRecordId === m.recordCrmRecordId
        ? `record ${input.recordCrmModule}/${input.recordCrmRecordId} is already mapped`
        : `project ${input.projectId} already has ${input.crm === 'appointment' ? 'an appointment' : 'a record'} mapping`;
  return `${clash}: ${describeMapping(m)}`;
}
