import { Body, ConflictException, Controller, HttpCode, NotFoundException, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsNotEmpty, IsString } from 'class-validator';
import { Actor, AdminRoute, RequiresRole } from '../auth/admin-auth.guard.js';
import type { AdminActor } from '../config/roles.js';
import { MappingLookupService } from '../mappings/mapping-lookup.service.js';
import { ActionRecorderService } from '../actions/action-recorder.service.js';
import type { LineItemsPayload } from '../domain/actions.js';

/** Ids are exact strings; a small one sent as a JSON number is accepted as its digits. */
const asIdString = ({ value }: { value: unknown }): unknown => (typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value);

export class SendToAppointmentDto {
  @ApiProperty({ example: '36029621652695017' })
  @Transform(asIdString)
  @IsString()
  @IsNotEmpty()
  project_id: string;

  @ApiProperty({ example: '36029621652695018' })
  @Transform(asIdString)
  @IsString()
  @IsNotEmpty()
  drawing_id: string;
}

export class SendAcceptedDto {
  @ApiProperty({ type: [String], description: 'The sync log entries created (the sale; status Sold follows it).' })
  sync_log_ids: string[];
}

/** The send action of the drawing page: the drawing's line items to the appointment's sale, then status Sold. */
@ApiTags('appointment-crm')
@AdminRoute()
@Controller('api/appointment-crm')
export class AppointmentSendController {
  constructor(
    private readonly mappings: MappingLookupService,
    private readonly actions: ActionRecorderService,
  ) {}

  @Post('send')
  @RequiresRole('operator')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: SendAcceptedDto })
  async send(@Body() body: SendToAppointmentDto, @Actor() actor: AdminActor): Promise<SendAcceptedDto> {
    const mapping = await this.mappings.appointmentOfProject(body.project_id);
    if (!mapping?.appointmentId) throw new NotFoundException(`project ${body.project_id} is not mapped to an appointment`);
    if (mapping.status === 'failed') {
      throw new ConflictException(`the mapping of project ${body.project_id} to appointment ${mapping.appointmentId} failed: ${mapping.error ?? 'no reason'}`);
    }
    const payload: LineItemsPayload = { drawing_id: body.drawing_id };
    const recorded = await this.actions.record([
      {
        kind: 'push_line_items',
        trigger: 'admin',
        actor: actor.name,
        crm: 'appointment',
        projectId: body.project_id,
        target: mapping.appointmentId,
        payload: { ...payload },
      },
    ]);
    return { sync_log_ids: recorded.map((r) => r.entry.id) };
  }
}
