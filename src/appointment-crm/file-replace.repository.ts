import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';

/** Every statement on `appointment_file_replace`: the number of the latest replace started per appointment and category (`drawing`, `proposal`, and `sale` for the sale's pushes). */
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
}
