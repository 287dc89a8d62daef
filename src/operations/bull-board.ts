import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { getQueueToken } from '@nestjs/bullmq';
import type { INestApplicationContext } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { QUEUES } from '../queues/queues.js';
import { authorize, type AdminRequest } from '../auth/admin-auth.guard.js';
import { AdminAuditService } from '../actions/admin-audit.service.js';
import { AdminIdentityService, CSRF_HEADER } from '../auth/session.service.js';
import { SignInThrottle } from '../auth/sign-in-throttle.js';

export const BULL_BOARD_PATH = '/admin/queues';

/**
 * Bull Board's own page, not the console's: its stylesheet sets inline styles (and its loading screen has a
 * `<style>`), so style-src allows them here only. Scripts, data and images stay on this origin; its web fonts are
 * not fetched from a third party (the page falls back to system fonts).
 */
export const BULL_BOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Bull Board's own UI cannot send the CSRF header, so a write from it with a session cookie is accepted when the
 * browser says it comes from this very origin (`Sec-Fetch-Site: same-origin`, set by the browser and not by a page).
 * The cookie is SameSite=Strict besides.
 */
function withBoardCsrf(request: FastifyRequest): FastifyRequest {
  if (SAFE_METHODS.has(request.method) || request.headers[CSRF_HEADER] === '1') return request;
  if (request.headers['sec-fetch-site'] !== 'same-origin') return request;
  const marked = { method: request.method, ip: request.ip, protocol: request.protocol, headers: { ...request.headers, [CSRF_HEADER]: '1' } };
  return marked as unknown as FastifyRequest;
}

/**
 * `/admin/queues`: Bull Board over the daemon's queues, for the admin role, signed in through the console's session
 * cookie (or a Bearer token). Without a valid session a page request is sent (302) to the console's sign-in at
 * `/admin`; the board's API answers 401 or 403 like `/api`.
 */
export function bullBoard(app: INestApplicationContext): (fastify: FastifyInstance) => Promise<void> {
  return async (fastify) => {
    const identity = app.get(AdminIdentityService, { strict: false });
    const throttle = app.get(SignInThrottle, { strict: false });
    const audit = app.get(AdminAuditService, { strict: false });
    const queues = Object.values(QUEUES).map((name) => new BullMQAdapter(app.get<Queue>(getQueueToken(name), { strict: false }), { readOnlyMode: false }));
    const serverAdapter = new FastifyAdapter();
    serverAdapter.setBasePath(BULL_BOARD_PATH);
    createBullBoard({ queues, serverAdapter, options: { uiConfig: { boardTitle: 'crm-sync queues' } } });

    fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      const decision = await authorize(identity, throttle, withBoardCsrf(request), 'admin');
      if (decision.ok) {
        (request as AdminRequest).adminActor = decision.actor;
        return;
      }
      const isApi = request.url.startsWith(`${BULL_BOARD_PATH}/api/`);
      if (decision.status === 401 && !isApi && SAFE_METHODS.has(request.method)) {
        return reply.code(302).header('location', '/admin').header('cache-control', 'no-store').send();
      }
      if (decision.status === 401) reply.header('www-authenticate', 'Bearer realm="crm-sync admin"');
      if (decision.status === 429) reply.header('retry-after', String(decision.retryAfterSeconds));
      return reply.code(decision.status).header('cache-control', 'no-store').send(decision.body);
    });
    fastify.addHook('onSend', async (_request, reply, payload) => {
      reply
        .header('content-security-policy', BULL_BOARD_CSP)
        .header('x-content-type-options', 'nosniff')
        .header('x-frame-options', 'DENY')
        .header('referrer-policy', 'no-referrer');
      return payload;
    });
    // Its writes (pause, retry, clean, remove a job) are admin writes like any other: on record with the actor.
    fastify.addHook('onResponse', async (request: AdminRequest, reply) => {
      if (SAFE_METHODS.has(request.method) || !request.adminActor || reply.statusCode >= 400) return;
      const path = request.url.split('?')[0].slice(BULL_BOARD_PATH.length);
      await audit
        .record(request.adminActor, { detail: `Bull Board: ${request.method} ${path}`, payload: { method: request.method, path } })
        .catch((err: unknown) => request.log.error({ err }, 'could not record a Bull Board write'));
    });
    await fastify.register(serverAdapter.registerPlugin(), { prefix: BULL_BOARD_PATH });
  };
}
