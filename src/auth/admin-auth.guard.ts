import {
  applyDecorators,
  type CanActivate,
  createParamDecorator,
  type ExecutionContext,
  ForbiddenException,
  HttpException,
  Injectable,
  SetMetadata,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiBearerAuth, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AdminActor, Role } from '../config/roles.js';
import { roleAllows } from '../config/roles.js';
import { AdminIdentityService, CSRF_HEADER, readCookie } from './session.service.js';
import { SignInThrottle } from './sign-in-throttle.js';

export const REQUIRED_ROLE = 'crm-sync:required-role';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The request once the guard has let it through: who made it. */
export type AdminRequest = FastifyRequest & { adminActor?: AdminActor };

/**
 * The role a route needs. Without it a route under `/api` (or marked `@AdminRoute()`) needs `viewer` for GET and
 * `admin` for every other method.
 */
export const RequiresRole = (role: Role): ClassDecorator & MethodDecorator => SetMetadata(REQUIRED_ROLE, role);

/** The caller of an admin route, as `{ name, role }` (set by the guard). */
export const Actor = createParamDecorator((_data: unknown, context: ExecutionContext): AdminActor => {
  const actor = context.switchToHttp().getRequest<AdminRequest>().adminActor;
  if (!actor) throw new UnauthorizedException({ statusCode: 401, message: 'missing or wrong admin token (Authorization: Bearer <ADMIN_TOKEN>)' });
  return actor;
});

export type AuthDecision =
  | { ok: true; actor: AdminActor; via: 'bearer' | 'session' }
  | { ok: false; status: 401 | 403 | 429; body: Record<string, unknown>; retryAfterSeconds?: number };

/** The answer to an address that failed too often (sign-in-throttle.ts), with the seconds for Retry-After. */
export function tooManyFailures(retryAfterSeconds: number): { status: 429; body: Record<string, unknown>; retryAfterSeconds: number } {
  return {
    status: 429,
    body: { statusCode: 429, message: `too many failed sign-ins from this address; try again in ${retryAfterSeconds} s` },
    retryAfterSeconds,
  };
}

const UNAUTHORIZED = { statusCode: 401, message: 'missing or wrong admin token (Authorization: Bearer <ADMIN_TOKEN>)' };

/**
 * The whole admin check, for Nest routes (the guard) and plain Fastify routes (Bull Board) alike: the caller from
 * `Authorization: Bearer` or, without that header, the console's session cookie; then the role; then, for a write
 * authenticated by the cookie, the CSRF header (a cross-site form can send the cookie but no custom header). A Bearer
 * token is looked at only in a slot reserved first (sign-in-throttle.ts): from an address that failed too often, not
 * at all (429); a wrong one keeps its slot as a failure.
 */
export async function authorize(identity: AdminIdentityService, throttle: SignInThrottle, request: FastifyRequest, required: Role): Promise<AuthDecision> {
  let actor: AdminActor | null;
  let via: 'bearer' | 'session';
  if (request.headers.authorization !== undefined) {
    const slot = await throttle.reserve(request.ip, 'bearer');
    if (slot.refusedFor > 0) return { ok: false, ...tooManyFailures(slot.refusedFor) };
    actor = identity.byBearer(request.headers.authorization);
    await slot.settle(actor !== null);
    via = 'bearer';
  } else {
    actor = await identity.bySession(readCookie(request.headers.cookie, identity.cookieNameFor(request)));
    via = 'session';
  }
  if (!actor) return { ok: false, status: 401, body: UNAUTHORIZED };
  if (!roleAllows(actor.role, required)) {
    const article = actor.role === 'admin' || actor.role === 'operator' ? 'an' : 'a';
    return {
      ok: false,
      status: 403,
      body: { statusCode: 403, message: `this route needs the ${required} role; ${actor.name} is ${article} ${actor.role}`, required_role: required },
    };
  }
  if (via === 'session' && !SAFE_METHODS.has(request.method) && request.headers[CSRF_HEADER] !== '1') {
    return { ok: false, status: 403, body: { statusCode: 403, message: `a write from a console session needs the header ${CSRF_HEADER}: 1` } };
  }
  return { ok: true, actor, via };
}

/** The role a request needs when its route declares none. */
export const defaultRole = (method: string): Role => (SAFE_METHODS.has(method) ? 'viewer' : 'admin');

/**
 * Whether the matched route is under `/api`. The route's own path, never the raw URL: the router matches the
 * percent-decoded path, so `/%61pi/…` reaches an `/api` route while its raw URL starts otherwise.
 */
const isApiRoute = (request: FastifyRequest): boolean => {
  const route = request.routeOptions.url ?? '';
  return route === '/api' || route.startsWith('/api/');
};

/**
 * Every route under `/api`, and every route marked `@AdminRoute()` or `@RequiresRole()`, needs a known token (or
 * session) with the route's role; registered app-wide by AuthModule, so a controller that forgets its decorator
 * is still closed. Other routes pass untouched. Sets `request.adminActor` for `@Actor()`.
 */
@Injectable()
export class AdminAuthGuard implements CanActivate {
  constructor(
    private readonly identity: AdminIdentityService,
    private readonly reflector: Reflector,
    private readonly throttle: SignInThrottle,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const http = context.switchToHttp();
    const request = http.getRequest<AdminRequest>();
    const declared = this.reflector.getAllAndOverride<Role | undefined>(REQUIRED_ROLE, [context.getHandler(), context.getClass()]);
    const marked = this.reflector.getAllAndOverride<boolean | undefined>(ADMIN_ROUTE, [context.getHandler(), context.getClass()]);
    if (!declared && !marked && !isApiRoute(request)) return true;
    const decision = await authorize(this.identity, this.throttle, request, declared ?? defaultRole(request.method));
    if (decision.ok) {
      request.adminActor = decision.actor;
      return true;
    }
    if (decision.status === 429) {
      http.getResponse<FastifyReply>().header('retry-after', String(decision.retryAfterSeconds));
      throw new HttpException(decision.body, 429);
    }
    if (decision.status === 401) {
      http.getResponse<FastifyReply>().header('www-authenticate', 'Bearer realm="crm-sync admin"');
      throw new UnauthorizedException(decision.body);
    }
    throw new ForbiddenException(decision.body) as HttpException;
  }
}

export const ADMIN_ROUTE = 'crm-sync:admin-route';

/**
 * Marks a controller or route as admin-only (checked by the app-wide AdminAuthGuard, also outside `/api`) and adds
 * the OpenAPI security requirement. Combine with `@RequiresRole('operator')` for a write an operator may make.
 */
export const AdminRoute = (): ClassDecorator & MethodDecorator =>
  applyDecorators(
    SetMetadata(ADMIN_ROUTE, true),
    ApiBearerAuth('admin'),
    ApiUnauthorizedResponse({ description: 'Missing or wrong admin token (or console session).' }),
    ApiForbiddenResponse({ description: 'The token lacks the role the route needs; the answer names it (`required_role`).' }),
  );
