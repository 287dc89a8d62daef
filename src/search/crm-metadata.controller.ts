import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiBadGatewayResponse, ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { APPOINTMENT_CRM, type AppointmentCrm } from '../appointment-crm/appointment-crm.js';
import { AdminRoute, RequiresRole } from '../auth/admin-auth.guard.js';
import { AppointmentStatusesRepository } from '../appointment-crm/appointment-statuses.repository.js';
import { ZohoFieldsClient, type ZohoFieldView, type ZohoModuleView } from '../record-crm/zoho/zoho-fields.client.js';
import { ZohoRevenueClient } from '../record-crm/zoho/zoho-revenue.client.js';
import { RECORD_MODULES, type RecordModule } from '../service-api/service-api.types.js';
import { answered } from './search.service.js';

/** A Deals pipeline as the Stage picker groups the values: its layout, its stages in their order. */
export interface PipelineView {
  layout: { id: string; name: string };
  name: string;
  default: boolean;
  stages: Array<{ value: string; sequence: number; forecast_type: string }>;
}

class FieldsQueryDto {
  @ApiPropertyOptional({ enum: RECORD_MODULES })
  @IsIn(RECORD_MODULES, { message: `module must be one of ${RECORD_MODULES.join(', ')}` })
  module: RecordModule;
}

/**
 * What the Automations screen's pickers offer: Zoho's modules, a module's fields with their pick lists, the Deals'
 * pipelines with their stages, the appointment statuses. For admins only, as the screen's settings are
 * (docs/automations.md, "Choosing the settings").
 */
@ApiTags('search')
@AdminRoute()
@RequiresRole('admin')
@Controller('api/crm-metadata')
export class CrmMetadataController {
  constructor(
    private readonly fields: ZohoFieldsClient,
    private readonly revenue: ZohoRevenueClient,
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
  @ApiOperation({
    summary: 'The Zoho modules crm-sync can automate (Deals, Quotes, Leads, Contacts), by the org’s labels (`GET /crm/v8/settings/modules`, kept a minute).',
    description: '`{ items: [{ api_name, label, in_org }] }`: `in_org` false for a module the org lacks or does not open to the API.',
  })
  @ApiConflictResponse({ description: 'Zoho CRM is not connected (`code: "not_connected"`).' })
  @ApiBadGatewayResponse({ description: 'Zoho failed; the message says why.' })
  async modules(): Promise<{ items: ZohoModuleView[] }> {
    return { items: await answered(() => this.fields.modules()) };
  }

  @Get('record-crm/pipelines')
  @ApiOperation({
    summary:
      'The Deals’ pipelines with their stages: each layout’s (`GET /crm/v8/settings/layouts?module=Deals`), then its pipelines (`GET /crm/v8/settings/pipeline?layout_id=`).',
    description:
      '`{ items: [{ layout: { id, name }, name, default, stages: [{ value, sequence, forecast_type }] }] }`, stages in their pipeline’s order (`forecast_type`: Open, Closed Won, Closed Lost).',
  })
  @ApiConflictResponse({ description: 'Zoho CRM is not connected (`code: "not_connected"`).' })
  @ApiBadGatewayResponse({ description: 'Zoho failed (a connection without ZohoCRM.settings.layouts.READ is refused there); the message says why.' })
  async pipelines(): Promise<{ items: PipelineView[] }> {
    const layouts = await answered(() => this.fields.layouts('Deals'));
    const items: PipelineView[] = [];
    for (const layout of layouts) {
      for (const p of await answered(() => this.revenue.pipelines(layout.id))) {
        const stages = [...p.stages].sort((a, b) => a.sequence - b.sequence);
        items.push({
          layout,
          name: p.name,
          default: p.default,
          stages: stages.map((st) => ({ value: st.value, sequence: st.sequence, forecast_type: st.forecast })),
        });
      }
    }
    return { items };
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
