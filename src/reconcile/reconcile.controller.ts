import { ConflictException, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiConflictResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Actor, AdminRoute, RequiresRole } from '../admin/admin-auth.guard.js';
import { AdminAudit } from '../admin/admin-audit.service.js';
import type { AdminActor } from '../admin/roles.js';
import { ReconcileService } from './reconcile.service.js';

@ApiTags('reconcile')
@AdminRoute()
@Controller('api/reconcile')
export class ReconcileController {
  constructor(
    private readonly reconcile: ReconcileService,
    private readonly audit: AdminAudit,
  ) {}

  @Post()
  @RequiresRole('operator')
  @HttpCode(202)
  @ApiOperation({ summary: 'Starts a reconciliation run now; answers its id (a sync log entry of kind reconcile).' })
  @ApiAcceptedResponse({ description: '`{ "id": "<sync log id>", "status": "queued" | "running" }`' })
  @ApiConflictResponse({ description: 'The service is not connected.' })
  async start(@Actor() actor: AdminActor): Promise<{ id: string; status: string }> {
    if (!(await this.reconcile.serviceConnected())) {
      throw new ConflictException({ statusCode: 409, message: 'the service is not connected: connect it on the Connections screen first' });
    }
    const entry = await this.reconcile.start('admin', actor.name);
    // A run already queued is joined (it keeps its own trigger): the request is still on record.
    await this.audit.record(actor, { detail: `reconciliation requested (entry ${entry.id})`, payload: { entry_id: entry.id } });
    return { id: entry.id, status: entry.status };
  }
}
