import { applyDecorators, type CanActivate, type ExecutionContext, Inject, Injectable, UnauthorizedException, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * `Authorization: Bearer <ADMIN_TOKEN>` or 401. Both sides are hashed first so the constant-time compare runs on
 * equal-length buffers and the answer time says nothing about the token's length or prefix. Depends on APP_CONFIG
 * only (a global provider), so any module's controller can use it through `@AdminRoute()` or `@UseGuards`.
 */
@Injectable()
export class AdminAuthGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.expected = digest(config.adminToken);
  }

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    if (this.isAdmin(http.getRequest<FastifyRequest>().headers.authorization)) return true;
    http.getResponse<FastifyReply>().header('www-authenticate', 'Bearer realm="crm-sync admin"');
    throw new UnauthorizedException({ statusCode: 401, message: 'missing or wrong admin token (Authorization: Bearer <ADMIN_TOKEN>)' });
  }

  isAdmin(header: string | undefined): boolean {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
    if (!match) return false;
    return timingSafeEqual(digest(match[1]), this.expected);
  }
}

/** Marks a controller or route as admin-only: the guard plus the OpenAPI security requirement. */
export const AdminRoute = (): ClassDecorator & MethodDecorator =>
  applyDecorators(UseGuards(AdminAuthGuard), ApiBearerAuth('admin'), ApiUnauthorizedResponse({ description: 'Missing or wrong admin token.' }));

/**
 * Every route under `/api` needs the admin token, whichever module declares it; registered app-wide by AdminModule
 * so that a controller that forgets `@AdminRoute()` is still closed. Other routes pass untouched.
 */
@Injectable()
export class AdminApiGuard implements CanActivate {
  constructor(private readonly admin: AdminAuthGuard) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const url = context.switchToHttp().getRequest<FastifyRequest>().url ?? '';
    if (url !== '/api' && !url.startsWith('/api/') && !url.startsWith('/api?')) return true;
    return this.admin.canActivate(context);
  }
}
