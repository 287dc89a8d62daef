import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';

/** Every statement on `appointment_status_seen`: the appointment statuses the reads have seen, for the settings' list. */
@Injectable()
export class AppointmentStatusesRepository {
  constructor(private readonly database: DatabaseService) {}

  async saw(statuses: string[]): Promise<void> {
    const distinct = [...new Set(statuses.filter((s) => s.trim() !== ''))];
    if (distinct.length === 0) return;
    await this.database.query(
      `INSERT INTO appointment_status_seen (status) SELECT unnest($1::text[])
       ON CONFLICT (status) DO UPDATE SET last_seen_at = now()`,
      [distinct],
    );
  }

  /** The statuses seen, in alphabetical order. */
  async seen(): Promise<string[]> {
    const rows = await this.database.query<Array<{ status: string }>>(`SELECT status FROM appointment_status_seen ORDER BY status`);
    return rows.map((r) => r.status);
  }
}
