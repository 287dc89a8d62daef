import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { AppointmentDrawingPush } from './drawing-push.row.js';

const COLUMNS = `appointment_id AS "appointmentId", drawing_id AS "drawingId", drawing_version_id AS "drawingVersionId", pushed_at AS "pushedAt"`;

/** Every statement on `appointment_drawing_push`. */
@Injectable()
export class AppointmentDrawingPushRepository {
  constructor(private readonly database: DatabaseService) {}

  findByAppointment(appointmentId: string): Promise<AppointmentDrawingPush[]> {
    return this.database.query<AppointmentDrawingPush[]>(`SELECT ${COLUMNS} FROM appointment_drawing_push WHERE appointment_id = $1`, [appointmentId]);
  }

  /** Replaces what the appointment's drawing files were made from, in one transaction. */
  async replaceForAppointment(appointmentId: string, drawings: Array<{ drawingId: string; drawingVersionId: string }>, pushedAt: Date): Promise<void> {
    await this.database.transaction(async (manager) => {
      await manager.query(`DELETE FROM appointment_drawing_push WHERE appointment_id = $1`, [appointmentId]);
      if (drawings.length === 0) return;
      await manager.query(
        `INSERT INTO appointment_drawing_push (appointment_id, drawing_id, drawing_version_id, pushed_at)
         SELECT $1, d.drawing_id, d.drawing_version_id, $4 FROM unnest($2::text[], $3::text[]) AS d(drawing_id, drawing_version_id)`,
        [appointmentId, drawings.map((d) => d.drawingId), drawings.map((d) => d.drawingVersionId), pushedAt],
      );
    });
  }
}
