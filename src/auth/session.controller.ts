import { Body, Controller, Delete, Get, HttpCode, Post, Req, Res, UnauthorizedException } from '@nestjs/common';
import { ApiBody, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Actor, AdminRoute } from './admin-auth.guard.js';
import { ROLES, type AdminActor } from '../config/roles.js';
import { AdminIdentity, sessionCookie } from './session.service.js';

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

/** Over https, or behind a proxy that says so (`trustProxy`: `request.protocol` reads X-Forwarded-Proto). */
const secure = (request: FastifyRequest): boolean => request.protocol === 'https';

/**
 * The console's session: a token exchanged once for an HttpOnly cookie (docs/operations.md "Roles and sessions"), so pages such
 * as Bull Board work without the token in a URL or in the page's script.
 */
@ApiTags('session')
@Controller()
export class SessionController {
  constructor(private readonly identity: AdminIdentity) {}

  @Post('admin/session')
  @HttpCode(204)
  @ApiOperation({ summary: 'Signs in: exchanges a token for the session cookie `crm_sync_session` (12 hours).' })
  @ApiBody({ type: SessionLoginDto })
  @ApiNoContentResponse({ description: 'Signed in; `Set-Cookie: crm_sync_session=…; HttpOnly; SameSite=Strict; Path=/; Max-Age=43200`.' })
  @ApiUnauthorizedResponse({ description: 'Unknown token.' })
  login(@Body() body: SessionLoginDto, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): void {
    const actor = this.identity.byToken(body.token);
    if (!actor) throw new UnauthorizedException({ statusCode: 401, message: 'unknown admin token' });
    reply.header('set-cookie', sessionCookie(this.identity.sessionFor(actor), secure(request))).header('cache-control', 'no-store');
  }

  @Delete('admin/session')
  @HttpCode(204)
  @ApiOperation({ summary: 'Signs out: clears the session cookie.' })
  @ApiNoContentResponse({ description: 'Signed out.' })
  logout(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): void {
    reply.header('set-cookie', sessionCookie(null, secure(request))).header('cache-control', 'no-store');
  }

  @Get('api/me')
  @AdminRoute()
  @ApiOperation({ summary: 'Who the token or session is: `{ name, role }`.' })
  @ApiOkResponse({ type: MeView })
  me(@Actor() actor: AdminActor): MeView {
    return { name: actor.name, role: actor.role };
  }
}
