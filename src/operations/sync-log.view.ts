import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { StoredCall } from '../sync-log/call-trace.repository.js';
import type { SyncLogEntry } from '../sync-log/sync-log.row.js';
import { ACTION_KIND_NAMES, SYNC_TRIGGERS } from '../domain/actions.js';
import { SYNC_STATUSES } from '../sync-log/sync-log.row.js';

/** A sync log entry as the admin API shows it (docs/operations.md, "The admin API"): ids as strings, times ISO 8601 UTC. */
export class SyncLogEntryView {
  @ApiProperty({ example: '42' }) id: string;
  @ApiProperty({ enum: ACTION_KIND_NAMES, enumName: 'ActionKind' }) kind: string;
  @ApiProperty({ enum: SYNC_TRIGGERS }) trigger: string;
  @ApiProperty({ nullable: true, type: String, example: '36029621652695017' }) project_id: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'Ruiz kitchen', description: "The project's name; null while unknown (or no project)." })
  project_name: string | null;
  @ApiProperty({ nullable: true, enum: ['appointment', 'record'] }) crm: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'The appointment id, or `Module/record id`.' }) target: string | null;
  @ApiProperty({ nullable: true, type: String, description: "The target's name, as its mapping keeps it; null while unknown." })
  target_name: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Where the target opens in its CRM; null when not known (docs/operations.md, "Links to the CRMs").',
  })
  target_web_url: string | null;
  @ApiProperty({ enum: SYNC_STATUSES, enumName: 'SyncStatus' }) status: string;
  @ApiProperty({ description: 'How many times the action ran.' }) attempts: number;
  @ApiProperty({ nullable: true, type: String, description: "The last failure's reason." }) error: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) finished_at: string | null;
  @ApiProperty({ nullable: true, type: Number }) duration_ms: number | null;
  @ApiProperty({ nullable: true, type: String, description: 'What the action did, or why it was skipped.' }) detail: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "The action's input; below the admin role, URL query strings and userinfo replaced by `?…` and `…@`.",
  })
  payload: Record<string, unknown>;
  @ApiPropertyOptional({ nullable: true, type: String }) parent_id: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) inbox_id: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'The admin (token name) whose request created the entry; null for the daemon.' })
  actor: string | null;
}

/** `GET /api/sync-logs/filters`: the values the console's filters offer, so that a new kind needs no console edit. */
export class SyncLogFilterChoicesView {
  @ApiProperty({ enum: ACTION_KIND_NAMES, enumName: 'ActionKind', isArray: true, description: 'Every action kind, ACTION_KINDS in src/domain/actions.ts.' })
  kinds: string[];
  @ApiProperty({ enum: SYNC_STATUSES, enumName: 'SyncStatus', isArray: true }) statuses: string[];
}

/** One outbound HTTP call an action made: never a secret, a query string or a body. */
export class SyncLogCallView {
  @ApiProperty({ description: 'The run (attempt number) that made the call.', example: 1 }) run: number;
  @ApiProperty({ description: 'Order of the call within its run, from 1.', example: 1 }) seq: number;
  @ApiProperty({ example: 'appointment_crm', description: '`service`, `download`, `appointment_crm`, `zoho` or `zoho_accounts`.' }) system: string;
  @ApiProperty({ example: 'POST' }) method: string;
  @ApiProperty({
    example: '/appointments/:id/files',
    description: 'A template: no ids, no query string; a PDF download from a signed URL is `(pdf download) <host>`.',
  })
  path: string;
  @ApiProperty({ nullable: true, type: Number, description: "The answer's status; null when there was none.", example: 503 }) status: number | null;
  @ApiProperty({ example: 120 }) duration_ms: number;
  @ApiProperty({ nullable: true, type: String, description: 'A short reason when the call failed.' }) error: string | null;
  @ApiProperty({ format: 'date-time', description: 'When the call started.' }) at: string;
}

/** `GET /api/sync-logs/:id`: the entry with its outbound calls. */
export class SyncLogEntryDetailView extends SyncLogEntryView {
  @ApiProperty({ type: [SyncLogCallView], description: 'Every outbound HTTP call of every run, in order (run, then seq).' })
  calls: SyncLogCallView[];
}

export function syncLogCallView(call: StoredCall): SyncLogCallView {
  return {
    run: call.run,
    seq: call.seq,
    system: call.system,
    method: call.method,
    path: call.path,
    status: call.status,
    duration_ms: call.durationMs,
    error: call.error,
    at: new Date(call.at).toISOString(),
  };
}

const iso = (date: Date | null): string | null => (date ? new Date(date).toISOString() : null);

const NO_NAMES: ReadonlyMap<string, string> = new Map();

/** The view of an entry; `projectNames` by project id, `targetNames` by `targetKey` (mappings/crm-target.ts). */
export function syncLogEntryView(
  entry: SyncLogEntry,
  projectNames: ReadonlyMap<string, string> = NO_NAMES,
  targetNames: ReadonlyMap<string, string> = NO_NAMES,
  links: ReadonlyMap<string, string> = NO_NAMES,
): SyncLogEntryView {
  return {
    id: String(entry.id),
    kind: entry.kind,
    trigger: entry.trigger,
    project_id: entry.projectId,
    project_name: entry.projectId === null ? null : (projectNames.get(entry.projectId) ?? null),
    crm: entry.crm,
    target: entry.target,
    target_name: entry.target && entry.crm ? (targetNames.get(`${entry.crm}:${entry.target}`) ?? null) : null,
    target_web_url: entry.target && entry.crm ? (links.get(`${entry.crm}:${entry.target}`) ?? null) : null,
    status: entry.status,
    attempts: entry.attempts,
    error: entry.error,
    created_at: iso(entry.createdAt)!,
    finished_at: iso(entry.finishedAt),
    duration_ms: entry.durationMs,
    detail: entry.detail,
    payload: entry.payload ?? {},
    parent_id: entry.parentId === null || entry.parentId === undefined ? null : String(entry.parentId),
    inbox_id: entry.inboxId === null || entry.inboxId === undefined ? null : String(entry.inboxId),
    actor: entry.actor ?? null,
  };
}
