import { Body, Controller, Delete, Get, HttpCode, HttpException, Post, Req, Res, UnauthorizedException } from '@nestjs/common';
import {
  ApiBody,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Actor, AdminRoute, tooManyFailures } from './admin-auth.guard.js';
import { ROLES, type AdminActor } from '../config/roles.js';
import { AdminIdentityService, readCookie, sessionCookie } from './session.service.js';
import { SignInThrottle } from './sign-in-throttle.js';

export class SessionLoginDto {
  @ApiProperty({ description: 'An admin token (`ADMIN_TOKEN` or the one printed on the first start, or one of `ADMIN_TOKENS`).' })
  @IsString()
  @MaxLength(4096)
  token: string;
}

export class MeView {
  @ApiProperty({ example: 'admin', description: 'The name of the token (or session) making the request.' }) name: string;
  @ApiProperty({ enum: ROLES }) role: string;
}

/**
 * The console's session: a token exchanged once for an HttpOnly cookie (docs/operations.md "Roles and sessions"), so pages such
 * as Bull Board work without the token in a URL or in the page's script.
 */
@ApiTags('session')
@Controller()
export class SessionController {
  constructor(
    private readonly identity: AdminIdentityService,
    private readonly throttle: SignInThrottle,
  ) {}

  @Post('admin/session')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Signs in: exchanges a token for the session cookie (12 hours): `__Host-crm_sync_session` over https, `crm_sync_session` over plain http.',
  })
  @ApiBody({ type: SessionLoginDto })
  @ApiNoContentResponse({
    description:
      'Signed in; `Set-Cookie: __Host-crm_sync_session=…; HttpOnly; SameSite=Strict; Path=/; Max-Age=43200; Secure` (over plain http: `crm_sync_session`, not Secure).',
  })
  @ApiUnauthorizedResponse({ description: 'Unknown token.' })
  @ApiTooManyRequestsResponse({ description: 'Too many failed sign-ins or Bearer tokens from this address; `Retry-After` says when to try again.' })
  async login(@Body() body: SessionLoginDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    const slot = await this.throttle.reserve(request.ip, 'sign-in');
    if (slot.refusedFor > 0) {
      const refusal = tooManyFailures(slot.refusedFor);
      reply.header('retry-after', String(refusal.retryAfterSeconds));
      throw new HttpException(refusal.body, refusal.status);
    }
    const actor = this.identity.byToken(body.token);
    await slot.settle(actor !== null);
    if (!actor) throw new UnauthorizedException({ statusCode: 401, message: 'unknown admin token' });
    const value = await this.identity.sessionFor(actor);
    reply.header('set-cookie', sessionCookie(value, this.identity.secureFor(request))).header('cache-control', 'no-store');
  }

  @Delete('admin/session')
  @HttpCode(204)
  @ApiOperation({ summary: 'Signs out: ends every session of the signed-in name, on every replica, and clears the cookie.' })
  @ApiNoContentResponse({ description: 'Signed out.' })
  async logout(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<void> {
    await this.identity.revoke(readCookie(request.headers.cookie, this.identity.cookieNameFor(request)));
    reply.header('set-cookie', sessionCookie(null, this.identity.secureFor(request))).header('cache-control', 'no-store');
  }

  @Get('api/me')
  @AdminRoute()
  @ApiOperation({ summary: 'Who the token or session is: `{ name, role }`.' })
  @ApiOkResponse({ type: MeView })
  me(@Actor() actor: AdminActor): MeView {
    return { name: actor.name, role: actor.role };
  }
}
