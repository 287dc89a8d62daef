import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbound HTTP calls of each run of an action (`sync_log_call`): system, method, path template, status,
 * duration and a short error, in call order. Never a body, a query string or a credential. Deleted with the entry.
 */
export class CallTraces1763700008000 implements MigrationInterface {
  name = 'CallTraces1763700008000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sync_log_call (
        id bigserial PRIMARY KEY,
        entry_id bigint NOT NULL REFERENCES sync_log (id) ON DELETE CASCADE,
        run integer NOT NULL,
        seq integer NOT NULL,
        system text NOT NULL,
        method text NOT NULL,
        path text NOT NULL,
        status integer,
        duration_ms integer NOT NULL,
        error text,
        at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX sync_log_call_entry ON sync_log_call (entry_id, run, seq)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sync_log_call`);
  }
}
