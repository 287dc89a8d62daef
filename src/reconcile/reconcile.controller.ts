import { Body, ConflictException, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBadRequestResponse, ApiConflictResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Actor, AdminRoute, RequiresRole } from '../auth/admin-auth.guard.js';
import { AdminAuditService } from '../actions/admin-audit.service.js';
import type { AdminActor } from '../config/roles.js';
import { ReconcileRequestDto } from './reconcile.dto.js';
import { ReconcileService } from './reconcile.service.js';

@ApiTags('reconcile')
@AdminRoute()
@Controller('api/reconcile')
export class ReconcileController {
  constructor(
    private readonly reconcile: ReconcileService,
    private readonly audit: AdminAuditService,
  ) {}

  @Post()
  @RequiresRole('operator')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Starts a reconciliation pass now (`scope`: `changes`, the default, or `full`); answers its id (a sync log entry of kind reconcile).',
  })
  @ApiAcceptedResponse({ description: '`{ "id": "<sync log id>", "status": "queued" | "running" }`' })
  @ApiBadRequestResponse({ description: 'An unknown scope.' })
  @ApiConflictResponse({ description: 'The service is not connected.' })
  async start(@Body() body: ReconcileRequestDto, @Actor() actor: AdminActor): Promise<{ id: string; status: string }> {
    if (!(await this.reconcile.serviceConnected())) {
      throw new ConflictException({ statusCode: 409, message: 'the service is not connected: connect it on the Connections screen first' });
    }
    const scope = body?.scope ?? 'changes';
    const entry = await this.reconcile.start('admin', scope, actor.name);
    // A pass already queued is joined (it keeps its own trigger): the request is still on record.
    await this.audit.record(actor, { detail: `${scope} reconciliation requested (entry ${entry.id})`, payload: { entry_id: entry.id, scope } });
    return { id: entry.id, status: entry.status };
  }
}
