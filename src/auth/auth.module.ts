import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ConnectionsModule } from '../connections/connections.module.js';
import { QueuesModule } from '../queues/queues.module.js';
import { AdminAuthGuard } from './admin-auth.guard.js';
import { AdminCredentialRepository } from './admin-credential.repository.js';
import { FirstStartTokenService } from './first-start-token.service.js';
import { SessionEpochRepository } from './session-epoch.repository.js';
import { SessionController } from './session.controller.js';
import { AdminIdentityService } from './session.service.js';
import { SignInThrottle } from './sign-in-throttle.js';

/**
 * The admin API's auth: roles, tokens and console sessions. Every `/api` route, and any route marked `@AdminRoute()`
 * or `@RequiresRole()`, is checked by the app-wide AdminAuthGuard (`admin-auth.guard.ts`); controllers read the caller
 * with `@Actor()` and record writes that create no action through AdminAuditService (the sync log's). Without ADMIN_TOKEN,
 * FirstStartTokenService makes the `admin` token on the first start and adds its stored hash to AdminIdentityService. Sessions are
 * keyed by a server secret and revoked on sign-out (SessionEpochRepository); failed sign-ins are counted per client
 * address (SignInThrottle). Bull Board
 * (`/admin/queues`, a Fastify plugin registered by createApp) checks its callers with AdminIdentityService too.
 */
@Module({
  imports: [ConnectionsModule, QueuesModule],
  controllers: [SessionController],
  providers: [
    AdminCredentialRepository,
    SessionEpochRepository,
    AdminIdentityService,
    SignInThrottle,
    FirstStartTokenService,
    { provide: APP_GUARD, useClass: AdminAuthGuard },
  ],
  exports: [AdminIdentityService, SignInThrottle],
})
export class AuthModule {}
