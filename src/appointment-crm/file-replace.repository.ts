import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';

/**
 * Every statement on `appointment_file_replace` (the number of the latest replace started per appointment and category:
 * `drawing`, `proposal`, and `sale` for the sale's pushes) and on `appointment_file_upload` (the uploads of an
 * appointment's files sent and not yet answered).
 */
@Injectable()
export class FileReplaceRepository {
  constructor(private readonly database: DatabaseService) {}

  /** Starts a replace: its number, higher than that of every replace started before it. */
  async start(appointmentId: string, category: string): Promise<string> {
    const [row] = await this.database.query<Array<{ run: string }>>(
      `INSERT INTO appointment_file_replace (appointment_id, category, latest_run) VALUES ($1, $2, 1)
       ON CONFLICT (appointment_id, category) DO UPDATE SET latest_run = appointment_file_replace.latest_run + 1, started_at = now()
       RETURNING latest_run::text AS run`,
      [appointmentId, category],
    );
    return row.run;
  }

  /** Whether `run` is still the latest replace started. */
  async isLatest(appointmentId: string, category: string, run: string): Promise<boolean> {
    const rows = await this.database.query<Array<{ latest: boolean }>>(
      `SELECT latest_run = $3::bigint AS latest FROM appointment_file_replace WHERE appointment_id = $1 AND category = $2`,
      [appointmentId, category, run],
    );
    return rows[0]?.latest === true;
  }

  /**
   * An upload of the appointment's file of `category` is sent now, and would land within `landsWithinMs` if its sender
   * stopped before its answer: the id of its mark, removed once it is answered.
   */
  async uploadSent(appointmentId: string, category: string, landsWithinMs: number): Promise<string> {
    const [row] = await this.database.query<Array<{ id: string }>>(
      `WITH expired AS (
         DELETE FROM appointment_file_upload WHERE appointment_id = $1 AND category = $2 AND lands_by < now() - interval '1 day'
       )
       INSERT INTO appointment_file_upload (appointment_id, category, lands_by)
       VALUES ($1, $2, clock_timestamp() + make_interval(secs => $3::float8 / 1000)) RETURNING id::text`,
      [appointmentId, category, landsWithinMs],
    );
    return row.id;
  }

  /** The upload was answered (its file, or a refusal): nothing of it lands later. */
  async uploadAnswered(id: string): Promise<void> {
    await this.database.query(`DELETE FROM appointment_file_upload WHERE id = $1`, [id]);
  }

  /** The upload went unanswered (a time-out, a connection lost mid-request): it may land as long again after now. */
  async uploadUnanswered(id: string): Promise<void> {
    await this.database.query(
      `UPDATE appointment_file_upload SET lands_by = GREATEST(lands_by, clock_timestamp() + (clock_timestamp() - sent_at)) WHERE id = $1`,
      [id],
    );
  }

  /** How long, in ms, until every upload of the appointment's files of `category` left unanswered, by any run, would have landed (0: none). */
  async msUntilUploadsLanded(appointmentId: string, category: string): Promise<number> {
    const [row] = await this.database.query<Array<{ ms: number | null }>>(
      `SELECT ceil(EXTRACT(EPOCH FROM (max(lands_by) - clock_timestamp())) * 1000)::float8 AS ms
         FROM appointment_file_upload WHERE appointment_id = $1 AND category = $2`,
      [appointmentId, category],
    );
    return Math.max(0, row?.ms ?? 0);
  }
}
