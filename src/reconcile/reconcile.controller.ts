import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminRoute } from '../admin/admin-auth.guard.js';
import { ReconcileService } from './reconcile.service.js';

@ApiTags('reconcile')
@AdminRoute()
@Controller('api/reconcile')
export class ReconcileController {
  constructor(private readonly reconcile: ReconcileService) {}

  @Post()
  @HttpCode(202)
  @ApiOperation({ summary: 'Starts a reconciliation run now; answers its id (a sync log entry of kind reconcile).' })
  @ApiAcceptedResponse({ description: '`{ "id": "<sync log id>", "status": "queued" | "running" }`' })
  async start(): Promise<{ id: string; status: string }> {
    const entry = await this.reconcile.start('admin');
    return { id: entry.id, status: entry.status };
  }
}
