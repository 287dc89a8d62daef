import { Module } from '@nestjs/common';
import { ActionsModule } from '../actions/actions.module.js';
import { AlertsModule } from '../alerts/alerts.module.js';
import { AppointmentCrmModule } from '../appointment-crm/appointment-crm.module.js';
import { ConnectionsModule } from '../connections/connections.module.js';
import { QueuesModule } from '../queues/queues.module.js';
import { RecordCrmModule } from '../record-crm/record-crm.module.js';
import { ServiceApiModule } from '../service-api/service-api.module.js';
import { SyncLogModule } from '../sync-log/sync-log.module.js';
import { AppointmentRevenueCheck } from './appointment-revenue.check.js';
import { CheckPositionRepository } from './check-position.repository.js';
import { DriftRepository } from './drift.repository.js';
import { RevenueCheckService } from './revenue-check.service.js';
import { RevenueController } from './revenue.controller.js';
import { RevenueSummaryService } from './revenue-summary.service.js';
import { ZohoRevenueCheck } from './zoho-revenue.check.js';

/** The revenue check: what the CRMs hold now against the service, drifts, heal and accept (docs/operations.md). */
@Module({
  imports: [ActionsModule, AlertsModule, AppointmentCrmModule, ConnectionsModule, QueuesModule, RecordCrmModule, ServiceApiModule, SyncLogModule],
  controllers: [RevenueController],
  providers: [DriftRepository, CheckPositionRepository, AppointmentRevenueCheck, ZohoRevenueCheck, RevenueCheckService, RevenueSummaryService],
  exports: [RevenueSummaryService],
})
export class RevenueModule {}
