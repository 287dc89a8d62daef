import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { SyncLogModule } from '../sync-log/sync-log.module.js';
import { AdminAuthGuard } from './admin-auth.guard.js';
import { AdminAudit } from './admin-audit.service.js';
import { FirstStartToken } from './first-start-token.service.js';
import { SessionController } from './session.controller.js';
import { AdminIdentity } from './session.service.js';
import { SignInThrottle } from './sign-in-throttle.js';
import { SyncLogsController } from './sync-logs.controller.js';

/**
 * The admin API's auth (roles, console sessions, audit) and the sync log routes. Every `/api` route, and any route
 * marked `@AdminRoute()` or `@RequiresRole()`, is checked by the app-wide AdminAuthGuard (`admin-auth.guard.ts`);
 * controllers read the caller with `@Actor()` and record writes that create no action through AdminAudit. Global so
 * any module can inject AdminAudit and AdminIdentity. Without ADMIN_TOKEN, FirstStartToken makes the `admin` token on the
 * first start and adds its stored hash to AdminIdentity. The console's static files (`GET /admin`) and Bull Board
 * (`/admin/queues`) are Fastify plugins registered by createApp: `console-static.ts`, `bull-board.ts`.
 */
@Global()
@Module({
  imports: [SyncLogModule],
  controllers: [SyncLogsController, SessionController],
  providers: [AdminIdentity, AdminAudit, FirstStartToken, SignInThrottle, { provide: APP_GUARD, useClass: AdminAuthGuard }],
  exports: [AdminIdentity, AdminAudit, SignInThrottle],
})
export class AdminModule {}
