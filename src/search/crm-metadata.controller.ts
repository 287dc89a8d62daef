import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiBadGatewayResponse, ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { APPOINTMENT_CRM, type AppointmentCrm } from '../appointment-crm/appointment-crm.js';
import { AdminRoute } from '../auth/admin-auth.guard.js';
import { AppointmentStatusesRepository } from '../appointment-crm/appointment-statuses.repository.js';
import { ZohoFieldsClient, type ZohoFieldView } from '../record-crm/zoho/zoho-fields.client.js';
import { RECORD_MODULES, type RecordModule } from '../service-api/service-api.types.js';
import { answered } from './search.service.js';

/** The Zoho modules crm-sync reads and maps (docs/automations.md), with the words Zoho's UI uses. */
const MODULE_LABELS: Record<RecordModule, string> = { Deals: 'Deals', Quotes: 'Quotes', Leads: 'Leads', Contacts: 'Contacts' };

class FieldsQueryDto {
  @ApiPropertyOptional({ enum: RECORD_MODULES })
  @IsIn(RECORD_MODULES, { message: `module must be one of ${RECORD_MODULES.join(', ')}` })
  module: RecordModule;
}

/** What the Automations screen's pickers offer: Zoho's modules and a module's fields with their pick lists. */
@ApiTags('search')
@AdminRoute()
@Controller('api/crm-metadata')
export class CrmMetadataController {
  constructor(
    private readonly fields: ZohoFieldsClient,
    @Inject(APPOINTMENT_CRM) private readonly appointmentCrm: AppointmentCrm,
    private readonly statusesSeen: AppointmentStatusesRepository,
  ) {}

  @Get('appointment-crm/statuses')
  @ApiOperation({
    summary: 'The appointment statuses: as the appointment CRM lists them (`GET /statuses`), else the statuses its reads have seen.',
    description: '`{ source: "crm" | "seen", items: [{ value, label }] }`: `seen` when the CRM does not list them (404), so typing stays open.',
  })
  @ApiConflictResponse({ description: 'The appointment CRM is not connected (`code: "not_connected"`).' })
  @ApiBadGatewayResponse({ description: 'The appointment CRM failed; the message says why.' })
  async appointmentStatuses(): Promise<{ source: 'crm' | 'seen'; items: Array<{ value: string; label: string }> }> {
    const listed = this.appointmentCrm.listStatuses ? await answered(() => this.appointmentCrm.listStatuses!()) : null;
    if (listed) return { source: 'crm', items: listed };
    return { source: 'seen', items: (await this.statusesSeen.seen()).map((value) => ({ value, label: value })) };
  }

  @Get('record-crm/modules')
  @ApiOperation({ summary: 'The Zoho modules crm-sync can read and map: `{ items: [{ api_name, label }] }`.' })
  modules(): { items: Array<{ api_name: RecordModule; label: string }> } {
    return { items: RECORD_MODULES.map((m) => ({ api_name: m, label: MODULE_LABELS[m] })) };
  }

  @Get('record-crm/fields')
  @ApiOperation({
    summary: "A Zoho module's fields, from Zoho (`GET /crm/v8/settings/fields?module=`, kept a minute).",
    description: '`{ items: [{ api_name, label, data_type, pick_list: [{ value, label }] | null }] }`, in Zoho’s order.',
  })
  @ApiOkResponse({ description: '`{ items: ZohoField[] }`' })
  @ApiBadRequestResponse({ description: 'module is missing or not one crm-sync reads.' })
  @ApiConflictResponse({ description: 'Zoho CRM is not connected (`code: "not_connected"`).' })
  @ApiBadGatewayResponse({ description: 'Zoho failed; the message says why.' })
  async moduleFields(@Query() query: FieldsQueryDto): Promise<{ items: ZohoFieldView[] }> {
    return { items: await answered(() => this.fields.fields(query.module)) };
  }
}
