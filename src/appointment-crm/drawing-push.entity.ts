import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Which version of each drawing the appointment's `drawing` files were last made from, written when a drawing
 * push succeeds. Reconciliation compares it with the service to find pushes a lost webhook never caused.
 */
@Entity('appointment_drawing_push')
export class AppointmentDrawingPush {
  @PrimaryColumn({ name: 'appointment_id', type: 'text' })
  appointmentId: string;

  @PrimaryColumn({ name: 'drawing_id', type: 'text' })
  drawingId: string;

  @Column({ name: 'drawing_version_id', type: 'text' })
  drawingVersionId: string;

  @Column({ name: 'pushed_at', type: 'timestamptz' })
  pushedAt: Date;
}
