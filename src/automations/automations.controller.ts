import { Body, Controller, Get, HttpCode, NotFoundException, Param, Post, Put, UnprocessableEntityException } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import { Actor, AdminRoute, RequiresRole } from '../auth/admin-auth.guard.js';
import type { AdminActor } from '../config/roles.js';
import type { FieldError } from '../common/validation-errors.js';
import {
  validateAppointmentCrmAutomation,
  validateRecordCrmAutomation,
  type AutomationCrm,
  type AutomationSettingsByCrm,
  type Validated,
} from '../crm-settings/automation-settings.js';
import { AutomationSettingsService } from '../crm-settings/automation-settings.service.js';
import { AdminAuditService } from '../actions/admin-audit.service.js';
import { AutomationPollRepository } from './automation-poll.repository.js';
import { AutomationPollerService } from './automation-poller.service.js';
import { automationView, type AutomationView } from './automations.view.js';
import { RecordNotificationsService, type NotificationsView } from './record-notifications.service.js';
import { MaintenanceTasksService } from '../queues/maintenance.service.js';

/** The record CRM's automation with how it learns of changes (Zoho's notifications or polling). */
type RecordAutomationView = AutomationView<'record'> & { notifications: NotificationsView };

/** The CRMs whose changes can be read now, by their name in the route. */
const READERS: Record<string, AutomationCrm | undefined> = {
  'appointment-crm': 'appointment',
  appointment: 'appointment',
  'record-crm': 'record',
  record: 'record',
};

const CRM_LABEL: Record<AutomationCrm, string> = { appointment: 'appointment CRM', record: 'record CRM' };

@ApiTags('automations')
@AdminRoute()
@Controller('api/automations')
export class AutomationsController {
  constructor(
    private readonly settings: AutomationSettingsService,
    private readonly polls: AutomationPollRepository,
    private readonly poller: AutomationPollerService,
    private readonly audit: AdminAuditService,
    private readonly notifications: RecordNotificationsService,
    private readonly tasks: MaintenanceTasksService,
  ) {}

  @Get()
  @RequiresRole('viewer')
  @ApiOperation({
    summary: "Each CRM's automation: its settings, when its changes were last read (`last_run_at`), how far (`cursor`), the last error.",
    description:
      "The record CRM's also says how it learns of changes: `notifications.state` `notified` (Zoho's notification channel, until " +
      '`channel_expiry`) or `polling` (with the `reason`, e.g. PUBLIC_URL unset).',
  })
  @ApiOkResponse({ description: '`{ "appointment_crm": {...}, "record_crm": {..., "notifications": {...}} }`' })
  async get(): Promise<{ appointment_crm: AutomationView<'appointment'>; record_crm: RecordAutomationView }> {
    const [appointment, record, notifications] = await Promise.all([this.view('appointment'), this.view('record'), this.notifications.view()]);
    return { appointment_crm: appointment, record_crm: { ...record, notifications } };
  }

  @Put('appointment-crm')
  @RequiresRole('admin')
  @ApiOperation({
    summary: "Sets the appointment CRM's automation; a field left out keeps its value.",
    description:
      '`create_projects`, `statuses` (empty: any), `owner` (e-mail; required with create_projects), `owner_from_sales_rep`, `match_on`, `auto_accept`.',
  })
  @ApiBody({ schema: { type: 'object' } })
  @ApiOkResponse({ description: 'The automation as GET shows it.' })
  @ApiUnprocessableEntityResponse({ description: '`errors: [{ field, code, message }]`, one per bad field.' })
  async putAppointmentCrm(@Body() body: unknown, @Actor() actor: AdminActor): Promise<AutomationView<'appointment'>> {
    const current = await this.settings.record('appointment');
    return this.save('appointment', current.settings, validateAppointmentCrmAutomation(body, current.settings), actor);
  }

  @Put('record-crm')
  @RequiresRole('admin')
  @ApiOperation({
    summary: "Sets the record CRM's (Zoho's) automation; a field left out keeps its value.",
    description:
      '`create_projects`, `module`, `field`, `values`, `owner`, `owner_from_sales_rep`, `match_on`, `match_fields`, `auto_accept`, ' +
      '`deal_stage_on_approved`, `deal_stage_on_lost`, `quote_line_items`, `fallback_product_id`, ' +
      "`trigger` (which of `workflow`, `approval`, `blueprint` crm-sync's writes fire; all three: as Zoho does when none is sent).",
  })
  @ApiBody({ schema: { type: 'object' } })
  @ApiOkResponse({ description: 'The automation as GET shows it.' })
  @ApiUnprocessableEntityResponse({ description: '`errors: [{ field, code, message }]`, one per bad field.' })
  async putRecordCrm(@Body() body: unknown, @Actor() actor: AdminActor): Promise<RecordAutomationView> {
    const current = await this.settings.record('record');
    const saved = await this.save('record', current.settings, validateRecordCrmAutomation(body, current.settings), actor);
    // The notification channel follows the settings at once (made, moved to another module, or removed), not at its next check.
    await this.tasks.runNow('zoho-notification-channel').catch(() => undefined);
    return { ...saved, notifications: await this.notifications.view() };
  }

  @Post(':crm/run')
  @HttpCode(202)
  @RequiresRole('operator')
  @ApiOperation({
    summary: "Reads the CRM's new and changed records now (`appointment-crm` or `record-crm`); answers the read's sync log entry (kind poll_changes).",
    description: 'A read still waiting to start is joined. Skipped when project creation is off for that CRM, or when another read is running.',
  })
  @ApiAcceptedResponse({ description: '`{ "id": "<sync log id>", "status": "queued" | "running" | ... }`' })
  @ApiNotFoundResponse({ description: 'No reader of that CRM.' })
  async run(@Param('crm') name: string, @Actor() actor: AdminActor): Promise<{ id: string; status: string }> {
    const crm = READERS[name];
    if (!crm)
      throw new NotFoundException({ statusCode: 404, message: `no reader of changes for "${name}": use appointment-crm or record-crm`, error: 'Not Found' });
    const entry = await this.poller.requestRead(crm, actor.name);
    return { id: entry.id, status: entry.status };
  }

  private async save<K extends AutomationCrm>(
    crm: K,
    before: AutomationSettingsByCrm[K],
    validated: Validated<AutomationSettingsByCrm[K]>,
    actor: AdminActor,
  ): Promise<AutomationView<K>> {
    if (!validated.ok) throw unprocessable(validated.errors);
    // Before the save: a read started by the new settings already starts where they say.
    await this.placeStart(crm, before, validated.settings);
    const record = await this.settings.save(crm, validated.settings, actor.name);
    await this.audit.record(actor, {
      detail: `${CRM_LABEL[crm]} automation saved (project creation ${validated.settings.create_projects ? 'on' : 'off'})`,
      crm,
      payload: { settings: validated.settings },
    });
    return automationView(record, await this.polls.find(crm));
  }

  /**
   * Where the next read starts. A new `start_from` (one differing from the stored one: GET's answer sent back moves
   * nothing) sets it once; else another module starts at this moment (the time and page reached were the other
   * module's); else creation turned on for a CRM never read starts at this moment, not at the CRM's beginning.
   */
  private async placeStart(crm: AutomationCrm, before: AutomationSettingsByCrm[AutomationCrm], after: AutomationSettingsByCrm[AutomationCrm]): Promise<void> {
    const now = new Date().toISOString();
    if (after.start_from !== null && after.start_from !== before.start_from) await this.polls.restartAt(crm, after.start_from);
    else if ('module' in after && 'module' in before && after.module !== before.module) await this.polls.restartAt(crm, now);
    else if (after.create_projects && !before.create_projects) await this.polls.startAtUnlessRead(crm, now);
  }

  private async view<K extends AutomationCrm>(crm: K): Promise<AutomationView<K>> {
    const [record, poll] = await Promise.all([this.settings.record(crm), this.polls.find(crm)]);
    return automationView(record, poll);
  }
}

function unprocessable(errors: FieldError[]): UnprocessableEntityException {
  return new UnprocessableEntityException({
    statusCode: 422,
    message: errors.map((e) => e.message),
    error: 'Unprocessable Entity',
    errors,
  });
}
