import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { OutboundError } from '../http/outbound-error.js';
import { QUEUES } from '../queues/queues.js';
import { ServiceApiClient } from '../service-api/service-api.client.js';
import type { AssociationPair } from '../service-api/service-api.types.js';
import { PermanentActionError, type ActionEntry, type ActionOutcome } from '../actions/action.types.js';
import { RunsAction } from '../actions/runs-action.decorator.js';
import type { Mapping } from './mapping.row.js';
import { MappingRepository } from './mapping.repository.js';
import { A2_CHUNK } from './mappings.service.js';

const ERROR_MAX = 2000;

/**
 * Runs an `associate` action: A2 for a chunk of appointment mappings, C1 for one record mapping.
 *
 * Claims: MappingsService gave the action its mappings (`claimed_by` = the entry id). A run first takes them again
 * (those still unclaimed or its own, pending, or failed when an admin retries the action), so a retried action never
 * sends a mapping another action holds. A transient failure keeps the claim while the worker retries; when the action
 * gives up (a permanent error, or its last try) the claims are released so the next trigger picks the mappings up.
 */
@Injectable()
export class MappingActionsService {
  private readonly logger = new Logger(MappingActionsService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly mappings: MappingRepository,
    private readonly service: ServiceApiClient,
  ) {}

  @RunsAction('associate', { queue: QUEUES.service })
  async run(entry: ActionEntry<'associate'>): Promise<ActionOutcome> {
    const ids = mappingIdsOf(entry);
    const mine = await this.takeClaims(entry, ids);
    if (mine.length === 0) {
      return { status: 'skipped', detail: 'nothing to associate: the mappings were removed, associated already, or are held by another action' };
    }
    return entry.crm === 'record' ? this.associateRecord(entry, mine[0]) : this.associateAppointments(entry, mine);
  }

  private async associateAppointments(entry: ActionEntry<'associate'>, mappings: Mapping[]): Promise<ActionOutcome> {
    if (mappings.length > A2_CHUNK) throw new PermanentActionError(`an A2 chunk holds at most ${A2_CHUNK} mappings, this one ${mappings.length}`);
    let result;
    try {
      result = await this.service.batchAssociateAppointments(mappings.map((m) => ({ appointment_id: m.appointmentId!, project_id: m.projectId })));
    } catch (err) {
      await this.releaseIfGivingUp(entry, err);
      throw err;
    }

    const byPair = new Map(mappings.map((m) => [pairKey({ appointment_id: m.appointmentId!, project_id: m.projectId }), m]));
    const byAppointment = new Map(mappings.map((m) => [m.appointmentId!, m]));
    const find = (pair: AssociationPair) => byPair.get(pairKey(pair)) ?? byAppointment.get(pair.appointment_id);
    const settled = new Set<string>();
    const associated: string[] = [];
    const failed: Array<{ id: string; error: string }> = [];
    for (const item of result.successItems) {
      const m = find(item);
      if (!m || settled.has(m.id)) continue;
      settled.add(m.id);
      associated.push(m.id);
    }
    for (const item of result.failItems) {
      const m = find(item);
      if (!m || settled.has(m.id)) continue;
      settled.add(m.id);
      failed.push({ id: m.id, error: item.message.slice(0, ERROR_MAX) });
    }
    const leftPending = mappings.filter((m) => !settled.has(m.id)).map((m) => m.id);

    await this.mappings.settleAssociation(entry.id, { associated, failed, leftPending });

    const parts = [`A2: ${associated.length} associated`, `${failed.length} failed`];
    if (failed.length > 0) parts[1] += ` (e.g. appointment ${mappings.find((m) => m.id === failed[0].id)?.appointmentId}: ${failed[0].error.slice(0, 200)})`;
    if (leftPending.length > 0) parts.push(`${leftPending.length} left pending: the answer named neither success nor failure for them`);
    return { status: 'succeeded', detail: parts.join(', ') };
  }

  private async associateRecord(entry: ActionEntry<'associate'>, mapping: Mapping): Promise<ActionOutcome> {
    const target = `${mapping.recordCrmModule}/${mapping.recordCrmRecordId}`;
    try {
      await this.service.associateRecord({ module: mapping.recordCrmModule!, recordId: mapping.recordCrmRecordId!, projectId: mapping.projectId });
    } catch (err) {
      // The service refused this record (400, 404, ...): the mapping fails with the reason. Not for 401/403, which
      // say our token is wrong, not the mapping: those release it for a later try, like a transient failure given up.
      if (err instanceof OutboundError && !err.transient && err.failure !== 'unauthorized') {
        await this.mappings.markFailed(mapping.id, entry.id, err.message.slice(0, ERROR_MAX));
      } else {
        await this.releaseIfGivingUp(entry, err);
      }
      throw err;
    }
    await this.mappings.markAssociated(mapping.id, entry.id);
    return { status: 'succeeded', detail: `C1: ${target} associated with project ${mapping.projectId}` };
  }

  /**
   * Takes the action's mappings for this run: pending ones no other action holds, and failed ones (an admin's retry
   * of the action sends those again). They are pending again until the answer settles them.
   */
  private async takeClaims(entry: ActionEntry<'associate'>, ids: string[]): Promise<Mapping[]> {
    if (ids.length === 0) return [];
    return this.mappings.claimForAssociation(entry.id, ids, entry.crm ?? 'appointment');
  }

  /** Mirrors the worker's decision: a permanent error, or the last try, ends the action; then the claims go back. */
  private async releaseIfGivingUp(entry: ActionEntry<'associate'>, err: unknown): Promise<void> {
    const permanent = err instanceof OutboundError ? !err.transient : err instanceof PermanentActionError;
    if (!permanent && entry.attempts < this.config.jobs.attempts) return;
    try {
      await this.mappings.releaseClaimsOf(entry.id);
    } catch (releaseErr) {
      // MappingsService.releaseStaleClaims picks these up on the next trigger.
      this.logger.warn(`#${entry.id}: could not release claims: ${(releaseErr as Error).message}`);
    }
  }
}

function mappingIdsOf(entry: ActionEntry<'associate'>): string[] {
  const ids = (entry.payload as { mapping_ids?: unknown }).mapping_ids;
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string' && /^\d{1,19}$/.test(id))) {
    throw new PermanentActionError('payload has no valid mapping_ids');
  }
  return ids as string[];
}

function pairKey(pair: AssociationPair): string {
  return `${pair.appointment_id}\u0000${pair.project_id}`;
}
