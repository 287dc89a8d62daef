import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadGatewayResponse,
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import { Actor, AdminRoute, RequiresRole } from '../auth/admin-auth.guard.js';
import { ApiPageResponse, idCursor, pageLimit, toPage, type PageOf } from '../common/pagination.js';
import { ParseIdPipe } from '../common/parse-id.pipe.js';
import type { AdminActor } from '../config/roles.js';
import { viewFor } from '../http/redact-urls.js';
import { DELIVERY_STATUSES, DeliveriesQueryDto } from './operations.dto.js';
import { OperationsService } from './operations.service.js';
import { DeliveryDetailView, DeliveryFilterChoicesView, deliveryView, DeliveryView } from './operations.view.js';
import { WEBHOOK_ENDPOINTS } from '../webhooks/inbox.row.js';

@ApiTags('operations')
@AdminRoute()
@Controller('api/deliveries')
export class DeliveriesController {
  constructor(private readonly operations: OperationsService) {}

  @Get()
  @ApiOperation({
    summary: 'The webhook inbox, newest first; filter by endpoint, event, status, project and receipt time.',
    description: '`status=duplicate` lists the deliveries the service sent more than once (`duplicates > 0`), whatever their status.',
  })
  @ApiPageResponse(DeliveryView)
  @ApiBadRequestResponse({ description: 'A filter or the paging is invalid; the message names the field.' })
  async list(@Query() query: DeliveriesQueryDto): Promise<PageOf<DeliveryView>> {
    const limit = pageLimit(query);
    const rows = await this.operations.deliveries({
      endpoint: query.endpoint,
      event: query.event,
      status: query.status,
      projectId: query.project_id,
      since: query.since ? new Date(query.since) : undefined,
      limit,
      cursor: idCursor(query),
    });
    const names = await this.operations.projectNames(rows.map((r) => r.projectId));
    return toPage(
      rows,
      limit,
      (r) => String(r.id),
      (r) => deliveryView(r, names),
    );
  }

  @Get('filters')
  @ApiOperation({ summary: 'The values of the Endpoint and Status filters: every webhook endpoint and every delivery status.' })
  @ApiOkResponse({ type: DeliveryFilterChoicesView })
  filters(): DeliveryFilterChoicesView {
    return { endpoints: [...WEBHOOK_ENDPOINTS], statuses: [...DELIVERY_STATUSES] };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One delivery: its raw body as received (ids exact), the body parsed (ids beyond 2^53 as strings), and the actions it produced.' })
  @ApiOkResponse({ type: DeliveryDetailView })
  @ApiNotFoundResponse({ description: 'No such delivery.' })
  async get(@Param('id', new ParseIdPipe()) id: string, @Actor() actor: AdminActor): Promise<DeliveryDetailView> {
    return viewFor(actor, await this.operations.delivery(id));
  }

  @Post(':id/replay')
  @RequiresRole('operator')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Routes a stored delivery (routed or failed) again now.',
    description:
      'Routing runs in the request; the actions it records are enqueued by the relay. Actions derived from the delivery (export prompts, drawing ' +
      'pushes) are recorded anew and run again; actions that happen once per fact (approvals, payments) stay the entries already recorded. ' +
      'Answers the ids of every entry the routing named, new or existing.',
  })
  @ApiAcceptedResponse({ description: '`{ sync_log_ids: string[], replay: number }`' })
  @ApiNotFoundResponse({ description: 'No such delivery.' })
  @ApiConflictResponse({ description: 'An unknown event (ignored), or a delivery not routed yet; the message says why.' })
  @ApiUnprocessableEntityResponse({ description: 'The stored body is still not of the documented shape; the message names the problem.' })
  @ApiBadGatewayResponse({ description: 'Routing needed the service, which failed; nothing was recorded.' })
  replay(@Param('id', new ParseIdPipe()) id: string, @Actor() actor: AdminActor): Promise<{ sync_log_ids: string[]; replay: number }> {
    return this.operations.replay(id, actor);
  }
}
