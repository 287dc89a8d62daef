/**
 * Which version of each drawing the appointment's `drawing` files were last made from, written when a drawing
 * push succeeds. Reconciliation compares it with the service to find pushes a lost webhook never caused.
 */
export interface AppointmentDrawingPush {
  appointmentId: string;
  drawingId: string;
  drawingVersionId: string;
  pushedAt: Date;
}
