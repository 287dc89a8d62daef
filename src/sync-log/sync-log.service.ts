import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DatabaseService } from '../database/database.service.js';
import type { NewAction } from './action.types.js';
import { SyncLogEntry, type SyncStatus } from './sync-log.entity.js';

export interface SyncLogFilter {
  status?: SyncStatus;
  kind?: string;
  projectId?: string;
  crm?: string;
  since?: Date;
  limit: number;
  /** The id of the last entry of the previous page. */
  cursor?: string;
}

const ERROR_MAX = 2000;

/** Writes and reads the sync log. Every state change of an action goes through here. */
@Injectable()
export class SyncLogService {
  constructor(private readonly database: DatabaseService) {}

  /**
   * Records an action. Returns the existing entry instead when the dedupe key was used before, or when a queued
   * action holds the coalesce key; `created` tells which.
   */
  async create(action: NewAction, manager?: EntityManager): Promise<{ entry: SyncLogEntry; created: boolean }> {
    const m = manager ?? this.database.dataSource.manager;
    const status = action.status ?? 'queued';
    const finished = status !== 'queued';
    for (let attempt = 0; attempt < 3; attempt++) {
      const rows: Array<Record<string, unknown>> = await m.query(
        `INSERT INTO sync_log (kind, trigger, crm, project_id, target, status, payload, detail, error, dedupe_key,
                               coalesce_key, inbox_id, parent_id, finished_at, duration_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, CASE WHEN $14 THEN now() END, CASE WHEN $14 THEN 0 END)
         ON CONFLICT DO NOTHING
         RETURNING *`,
        [
          action.kind,
          action.trigger,
          action.crm,
          action.projectId,
          action.target,
          status,
          action.payload ?? {},
          action.detail ?? null,
          action.error?.slice(0, ERROR_MAX) ?? null,
          action.dedupeKey ?? null,
          finished ? null : (action.coalesceKey ?? null),
          action.inboxId ?? null,
          action.parentId ?? null,
          finished,
        ],
      );
      if (rows.length > 0) return { entry: this.toEntity(rows[0], m), created: true };
      const existing = await this.findConflicting(action, m);
      if (existing) return { entry: existing, created: false };
      // The queued entry we collided with started running meanwhile; a new one may be created now.
    }
    throw new Error(`could not record ${action.kind}: keeps colliding`);
  }

  get(id: string): Promise<SyncLogEntry | null> {
    if (!/^\d{1,19}$/.test(id)) return Promise.resolve(null);
    return this.database.repo(SyncLogEntry).findOneBy({ id });
  }

  /** Marks a run as started; null when the entry is already finished (a stale or repeated job). */
  async startRun(id: string): Promise<SyncLogEntry | null> {
    const rows = await this.database.returning<Record<string, unknown>>(
      `UPDATE sync_log SET status = 'running', attempts = attempts + 1, started_at = now(), updated_at = now()
        WHERE id = $1 AND status IN ('queued', 'running') RETURNING *`,
      [id],
    );
    return rows.length > 0 ? this.toEntity(rows[0]) : null;
  }

  async finish(id: string, status: 'succeeded' | 'skipped' | 'failed', detail: string | null, error?: string): Promise<void> {
    await this.database.query(
      `UPDATE sync_log SET status = $2, detail = COALESCE($3, detail), error = COALESCE($4, error), coalesce_key = NULL,
              finished_at = now(), updated_at = now(),
              duration_ms = GREATEST(0, (EXTRACT(EPOCH FROM now() - COALESCE(started_at, created_at)) * 1000)::int)
        WHERE id = $1`,
      [id, status, detail, error?.slice(0, ERROR_MAX) ?? null],
    );
  }

  /** The run failed but will be tried again: back to `queued`, keeping the reason. */
  async awaitRetry(id: string, error: string): Promise<void> {
    await this.database.query(`UPDATE sync_log SET status = 'queued', error = $2, updated_at = now() WHERE id = $1`, [
      id,
      error.slice(0, ERROR_MAX),
    ]);
  }

  /**
   * A failed entry queued to run again (the admin's retry), with a fresh budget of tries; `attempts` keeps counting
   * every run. Null when the entry is not failed.
   */
  async requeue(id: string): Promise<SyncLogEntry | null> {
    const rows = await this.database.returning<Record<string, unknown>>(
      `UPDATE sync_log SET status = 'queued', retry_base = attempts, finished_at = NULL, duration_ms = NULL, updated_at = now()
        WHERE id = $1 AND status = 'failed' RETURNING *`,
      [id],
    );
    return rows.length > 0 ? this.toEntity(rows[0]) : null;
  }

  /** Entries that should be on a queue; with `olderThanMs`, only those untouched that long. */
  async unfinished(olderThanMs: number, limit = 1000): Promise<SyncLogEntry[]> {
    return this.database
      .repo(SyncLogEntry)
      .createQueryBuilder('e')
      .where(`e.status IN ('queued', 'running')`)
      .andWhere(`e.updated_at <= now() - make_interval(secs => :seconds)`, { seconds: olderThanMs / 1000 })
      .orderBy('e.id', 'ASC')
      .limit(limit)
      .getMany();
  }

  async list(filter: SyncLogFilter): Promise<{ items: SyncLogEntry[]; nextCursor: string | null }> {
    const query = this.database.repo(SyncLogEntry).createQueryBuilder('e').orderBy('e.id', 'DESC').limit(filter.limit + 1);
    if (filter.status) query.andWhere('e.status = :status', { status: filter.status });
    if (filter.kind) query.andWhere('e.kind = :kind', { kind: filter.kind });
    if (filter.projectId) query.andWhere('e.project_id = :projectId', { projectId: filter.projectId });
    if (filter.crm) query.andWhere('e.crm = :crm', { crm: filter.crm });
    if (filter.since) query.andWhere('e.created_at >= :since', { since: filter.since });
    if (filter.cursor) query.andWhere('e.id < :cursor', { cursor: filter.cursor });
    const rows = await query.getMany();
    const items = rows.slice(0, filter.limit);
    return { items, nextCursor: rows.length > filter.limit ? items[items.length - 1].id : null };
  }

  private async findConflicting(action: NewAction, m: EntityManager): Promise<SyncLogEntry | null> {
    const repo = m.getRepository(SyncLogEntry);
    if (action.dedupeKey) {
      const byKey = await repo.findOneBy({ dedupeKey: action.dedupeKey });
      if (byKey) return byKey;
    }
    if (action.coalesceKey) return repo.findOneBy({ coalesceKey: action.coalesceKey, status: 'queued' });
    return null;
  }

  /** A row read back with RETURNING *, as the entity (saves reading it again). */
  private toEntity(row: Record<string, unknown>, m?: EntityManager): SyncLogEntry {
    const metadata = (m ?? this.database.dataSource.manager).connection.getMetadata(SyncLogEntry);
    const entry = new SyncLogEntry();
    for (const column of metadata.columns) {
      (entry as unknown as Record<string, unknown>)[column.propertyName] = row[column.databaseName];
    }
    entry.id = String(entry.id);
    if (entry.inboxId !== null) entry.inboxId = String(entry.inboxId);
    if (entry.parentId !== null) entry.parentId = String(entry.parentId);
    return entry;
  }

}
