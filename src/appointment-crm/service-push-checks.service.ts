import { Injectable } from '@nestjs/common';
import { QUEUES } from '../queues/queues.js';
import { PermanentActionError, type ActionEntry, type ActionOutcome } from '../actions/action.types.js';
import { RunsAction } from '../actions/runs-action.decorator.js';
import { SelectedAppointmentCrm } from './selected-appointment-crm.js';

/**
 * With the service pushing to a Salesforce org through its own integration, crm-sync pushes nothing there and checks
 * instead, a set time after the event (APPOINTMENT_CRM_PUSH_CHECK_SECONDS), that the push arrived: a drawing's PDF
 * after a drawing upload; the proposal file and the Sold result after an export-prompt yes. What is missing fails the
 * entry at once, naming the appointment with a link to it, which raises the `action_failed` alert.
 */
@Injectable()
export class ServicePushChecksService {
  constructor(private readonly selected: SelectedAppointmentCrm) {}

  @RunsAction('check_service_push', { crm: 'appointment', queue: QUEUES.appointmentCrm })
  async check(entry: ActionEntry<'check_service_push'>): Promise<ActionOutcome> {
    const appointmentId = entry.target;
    if (!appointmentId) throw new PermanentActionError('check_service_push has no appointment id');
    const org = await this.selected.salesforceAdapter();
    if (!org || (await this.selected.pushesBy()) !== 'service')
      return { status: 'skipped', detail: 'crm-sync pushes to this appointment CRM itself: nothing to check' };
    const { expect, drawing_id: drawingId, since } = entry.payload;
    const files = await org.filesSince(appointmentId, new Date(since));
    const missing: string[] = [];
    const what =
      expect === 'proposal'
        ? `the proposal file${drawingId ? ` of drawing ${drawingId}` : ''}`
        : `the drawing PDF${drawingId ? ` of drawing ${drawingId}` : ''}`;
    if (files.length === 0) missing.push(what);
    if (expect === 'proposal') {
      const { status } = await org.getAppointment(appointmentId);
      if (status !== org.schema.soldValue) missing.push(`the result ${org.schema.soldValue} (it is ${status ? `"${status}"` : 'empty'})`);
    }
    const link = await org.webUrlOf(appointmentId);
    if (missing.length > 0)
      throw new PermanentActionError(
        `the service's push to appointment ${appointmentId} has not arrived since ${since}: ${missing.join(' and ')} missing; see ${link}`,
      );
    return {
      status: 'succeeded',
      detail: `the service pushed ${files.map((f) => f.name).join(', ')} to appointment ${appointmentId}${expect === 'proposal' ? ` and set it ${org.schema.soldValue}` : ''}`,
    };
  }
}
