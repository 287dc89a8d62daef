import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseExactJson } from '../http/exact-json.js';

export const WEBHOOK_BODY_LIMIT = 1024 * 1024;
const ADMIN_JSON_LIMIT = 5 * 1024 * 1024;

const isWebhook = (request: FastifyRequest) => request.url.startsWith('/webhooks/');

/**
 * Body parsing for the whole app:
 * - webhook routes get the raw bytes, whatever the content type, because the signature is over those bytes and
 *   must be checked before the body is judged (a non-JSON body is a 400 only once the signature holds);
 * - JSON elsewhere is parsed keeping big integers exact;
 * - CSV arrives as a stream, so an import of any size is read row by row.
 */
export function registerBodyParsers(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();

  fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: ADMIN_JSON_LIMIT }, (request, body, done) => {
    if (isWebhook(request)) return done(null, body);
    if (body.length === 0) return done(null, undefined);
    try {
      done(null, parseExactJson(body.toString('utf8')));
    } catch {
      done(Object.assign(new Error('body is not valid JSON'), { statusCode: 400 }), undefined);
    }
  });

  fastify.addContentTypeParser(['text/csv', 'application/csv'], (_request, payload, done) => done(null, payload));

  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: ADMIN_JSON_LIMIT }, (request, body, done) => {
    if (isWebhook(request)) return done(null, body);
    done(Object.assign(new Error(`unsupported content type: ${String(request.headers['content-type']).slice(0, 80)}`), { statusCode: 415 }), undefined);
  });

  // Webhook deliveries are capped at 1 MiB whatever parser reads them.
  fastify.addHook('onRoute', (route) => {
    if (route.url.startsWith('/webhooks/')) route.bodyLimit = WEBHOOK_BODY_LIMIT;
  });
}
