import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { SyncLogModule } from '../sync-log/sync-log.module.js';
import { AdminApiGuard, AdminAuthGuard } from './admin-auth.guard.js';
import { SyncLogsController } from './sync-logs.controller.js';

/**
 * The admin API's auth and the sync log routes. Other modules' admin controllers use `@AdminRoute()` (or
 * `@UseGuards(AdminAuthGuard)`) from `admin-auth.guard.ts`, and the list helpers from `pagination.ts`; on top of
 * that, every `/api` route is closed app-wide by AdminApiGuard. The console's static files (`GET /admin`) are a
 * Fastify plugin registered by createApp: `console-static.ts`.
 */
@Module({
  imports: [SyncLogModule],
  controllers: [SyncLogsController],
  providers: [AdminAuthGuard, { provide: APP_GUARD, useClass: AdminApiGuard }],
  exports: [AdminAuthGuard],
})
export class AdminModule {}
