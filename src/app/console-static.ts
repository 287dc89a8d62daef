import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { existsSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The admin console (docs/operations.md, "Day to day"): static files from the repository's top-level `console/`
 * folder, two levels up from this module both when the TypeScript sources run (`src/app/`, Jest) and in the built
 * daemon (`dist/app/`; the image copies `console/` beside `dist/`).
 * `GET /admin` (and `/admin/`) answer index.html, `/admin/<file>` the folder's files; anything else under `/admin/`
 * is the app's 404 (Bull Board at `/admin/queues` is a plugin of its own). Served without auth since they hold no data:
 * the page exchanges a token for the session cookie (`POST /admin/session`) and calls the `/api` routes with it.
 * Fastify routes of their own, so they are not in the OpenAPI document.
 */
export const CONSOLE_DIR = fileURLToPath(new URL('../../console/', import.meta.url));

/** Only this origin's files: no inline script or style (so no nonce), API calls to this origin, no framing. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** @fastify/send says application/javascript; text/javascript is the standard type for scripts and modules. */
const CONTENT_TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8' };

function setHeaders(reply: FastifyReply, path: string): void {
  const type = CONTENT_TYPES[extname(path)];
  if (type) reply.header('content-type', type);
  reply
    .header('content-security-policy', CONSOLE_CSP)
    // The page never cached, so a new daemon's page never meets old assets; the assets revalidated (ETag).
    .header('cache-control', basename(path) === 'index.html' ? 'no-store' : 'no-cache')
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer');
}

/** A Fastify plugin (encapsulated: `reply.sendFile` stays inside it) serving the console under `/admin`. */
export async function adminConsole(fastify: FastifyInstance): Promise<void> {
  if (!existsSync(`${CONSOLE_DIR}index.html`)) {
    // A build that left the files out: the daemon still runs, and the console says what is wrong.
    const missing = `crm-sync: the admin console's files are missing from ${CONSOLE_DIR} (console/ belongs beside dist/)\n`;
    fastify.get('/admin', (_request, reply) => {
      reply.code(500).type('text/plain; charset=utf-8').send(missing);
    });
    return;
  }
  await fastify.register(fastifyStatic, {
    root: CONSOLE_DIR,
    prefix: '/admin/',
    // One route per file found at start (plus `/admin/` for index.html), rather than a catch-all `/admin/*`.
    wildcard: false,
    dotfiles: 'ignore',
    cacheControl: false,
    setHeaders,
  });
  fastify.get('/admin', (_request, reply) => {
    reply.sendFile('index.html');
  });
}
