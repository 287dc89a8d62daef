import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { parseExactJson } from '../http/exact-json.js';

export const WEBHOOK_BODY_LIMIT = 1024 * 1024;
const ADMIN_JSON_LIMIT = 5 * 1024 * 1024;

/**
 * Judged by the route the router matched, not by the raw URL: the router matches the percent-decoded path, so
 * `/%77ebhooks/events` reaches the webhook route too.
 */
const isWebhook = (request: FastifyRequest) => (request.routeOptions.url ?? '').startsWith('/webhooks/');
/** The routes that read their body as a stream (a CSV import of any size); every other route gets parsed bodies only. */
export const STREAMED_BODY_ROUTES = new Set(['/api/mappings/import']);

/**
 * Body parsing for the whole app:
 * - webhook routes get the raw bytes, whatever the content type, because the signature is over those bytes and
 *   must be checked before the body is judged (a non-JSON body is a 400 only once the signature holds);
 * - JSON elsewhere is parsed keeping big integers exact;
 * - CSV arrives as a stream, so an import of any size is read row by row; on the import route only: a stream handed
 *   to any other route would reach its validation, which walks into the socket behind it and aborts the process.
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

  fastify.addContentTypeParser(['text/csv', 'application/csv'], (request, payload, done) => {
    if (STREAMED_BODY_ROUTES.has(request.routeOptions.url ?? '')) return done(null, payload);
    if (isWebhook(request)) return readWhole(payload, WEBHOOK_BODY_LIMIT, done);
    done(unsupported(request), undefined);
  });

  fastify.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: ADMIN_JSON_LIMIT }, (request, body, done) => {
    if (isWebhook(request)) return done(null, body);
    done(unsupported(request), undefined);
  });

  // Webhook deliveries are capped at 1 MiB whatever parser reads them.
  fastify.addHook('onRoute', (route) => {
    if (route.url.startsWith('/webhooks/')) route.bodyLimit = WEBHOOK_BODY_LIMIT;
  });
}

const unsupported = (request: FastifyRequest): Error =>
  Object.assign(new Error(`unsupported content type: ${String(request.headers['content-type']).slice(0, 80)}`), { statusCode: 415 });

/** The whole of a streamed body as bytes, refused with 413 past `limit` (what `parseAs: 'buffer'` does). */
function readWhole(payload: Readable, limit: number, done: (err: Error | null, body?: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const finish = (err: Error | null, body?: Buffer) => {
    if (finished) return;
    finished = true;
    done(err, body);
  };
  payload.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      finish(Object.assign(new Error(`the body is over ${limit} bytes`), { statusCode: 413 }));
      payload.destroy();
    } else chunks.push(chunk);
  });
  payload.on('end', () => finish(null, Buffer.concat(chunks)));
  payload.on('error', (err) => finish(err));
}
