import { Controller, Get, UnauthorizedException, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AdminAuthGuard } from './admin-auth.guard.js';
import type { AdminIdentityService } from './session.service.js';
import type { SignInThrottle } from './sign-in-throttle.js';

/** A controller that forgot its decorator: the app-wide guard must still close its `/api` routes. */
@Controller('api/forgotten')
class ForgottenController {
  @Get()
  list(): string[] {
    return [];
  }
}

function contextFor(url: string, route: string): ExecutionContext {
  const request = { url, method: 'GET', headers: {}, ip: '203.0.113.9', routeOptions: { url: route } };
  return {
    getType: () => 'http',
    getHandler: () => ForgottenController.prototype.list,
    getClass: () => ForgottenController,
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => ({ header: () => undefined }) }),
  } as unknown as ExecutionContext;
}

describe('AdminAuthGuard', () => {
  const identity = { bySession: () => Promise.resolve(null), cookieNameFor: () => 'crm_sync_session' } as unknown as AdminIdentityService;
  const throttle = {} as SignInThrottle;
  const guard = new AdminAuthGuard(identity, new Reflector(), throttle);

  it('closes an undecorated /api route whatever the raw URL says: /%61pi/… is matched as /api/…', async () => {
    await expect(guard.canActivate(contextFor('/api/forgotten', '/api/forgotten'))).rejects.toBeInstanceOf(UnauthorizedException);
    await expect(guard.canActivate(contextFor('/%61pi/forgotten', '/api/forgotten'))).rejects.toBeInstanceOf(UnauthorizedException);
    await expect(guard.canActivate(contextFor('/%61%70%69/forgotten?x=1', '/api/forgotten'))).rejects.toBeInstanceOf(UnauthorizedException);
  });

  it('leaves a route outside /api open, even when its raw URL looks like one', async () => {
    await expect(guard.canActivate(contextFor('/api/../health', '/health'))).resolves.toBe(true);
  });
});
