import { Module } from '@nestjs/common';
import { AutomationsModule } from '../automations/automations.module.js';
import { MappingsModule } from '../mappings/mappings.module.js';
import { RevenueModule } from '../revenue/revenue.module.js';
import { SyncLogModule } from '../sync-log/sync-log.module.js';
import { FunnelController } from './funnel.controller.js';
import { FunnelService } from './funnel.service.js';

/** The funnel for revenue ops (`GET /api/funnel`): how far each CRM's records went, read from the stored facts. */
@Module({
  imports: [AutomationsModule, MappingsModule, RevenueModule, SyncLogModule],
  controllers: [FunnelController],
  providers: [FunnelService],
})
export class FunnelModule {}
