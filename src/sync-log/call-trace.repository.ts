import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { TracedCall } from '../http/call-trace.js';

/** A stored call of an action, with the run (attempt number) it belongs to. */
export interface StoredCall extends TracedCall {
  run: number;
}

/** The SQL of `sync_log_call`: the outbound calls of each run of an action. */
@Injectable()
export class CallTraceRepository {
  constructor(private readonly database: DatabaseService) {}

  /** Stores the calls of one run of an entry, in one statement. */
  async save(entryId: string, run: number, calls: TracedCall[]): Promise<void> {
    if (calls.length === 0) return;
    await this.database.query(
      `INSERT INTO sync_log_call (entry_id, run, seq, system, method, path, status, duration_ms, error, at)
       SELECT $1::bigint, $2::int, c.seq, c.system, c.method, c.path, c.status, c.duration_ms, c.error, c.at
         FROM unnest($3::int[], $4::text[], $5::text[], $6::text[], $7::int[], $8::int[], $9::text[], $10::timestamptz[])
           AS c (seq, system, method, path, status, duration_ms, error, at)`,
      [
        entryId,
        run,
        calls.map((c) => c.seq),
        calls.map((c) => c.system),
        calls.map((c) => c.method),
        calls.map((c) => c.path),
        calls.map((c) => c.status),
        calls.map((c) => c.durationMs),
        calls.map((c) => c.error),
        calls.map((c) => c.at.toISOString()),
      ],
    );
  }

  /** Every call of an entry, in order: run by run, then as made. */
  async forEntry(entryId: string): Promise<StoredCall[]> {
    const rows = await this.database.query<Record<string, unknown>[]>(
      `SELECT run, seq, system, method, path, status, duration_ms, error, at
         FROM sync_log_call WHERE entry_id = $1 ORDER BY run, seq, sync_log_call.id`,
      [entryId],
    );
    return rows.map((r) => ({
      run: Number(r.run),
      seq: Number(r.seq),
      system: String(r.system),
      method: String(r.method),
      path: String(r.path),
      status: r.status === null ? null : Number(r.status),
      durationMs: Number(r.duration_ms),
      error: (r.error as string | null) ?? null,
      at: new Date(r.at as string),
    }));
  }
}
