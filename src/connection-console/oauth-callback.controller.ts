import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AdminAuditService } from '../actions/admin-audit.service.js';
import { readCookie } from '../auth/session.service.js';
import { OAUTH_BINDING_COOKIE, oauthBindingCookie } from './oauth-binding-cookie.js';
import { CALLBACK_PATH, ZohoConnectService, type CallbackQuery } from './zoho-connect.service.js';

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Where Zoho sends the admin back after the consent. It needs no token (a top-level navigation from Zoho carries
 * no session cookie): the single-use state and this browser's binding cookie are the proof.
 */
@ApiExcludeController()
@Controller()
export class OAuthCallbackController {
  constructor(
    private readonly zoho: ZohoConnectService,
    private readonly audit: AdminAuditService,
  ) {}

  @Get(CALLBACK_PATH.slice(1))
  async callback(@Query() query: CallbackQuery, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    // `?state=a&state=b` arrives as an array, which the exchange cannot read: a malformed request, not a failure of ours.
    const repeated = Object.entries(query as Record<string, unknown>).filter(([, value]) => Array.isArray(value));
    if (repeated.length > 0) {
      await sendFailure(reply.header('cache-control', 'no-store'), 400, `${repeated.map(([name]) => name).join(', ')} must be given once`);
      return;
    }
    const outcome = await this.zoho.finish(query, readCookie(request.headers.cookie, OAUTH_BINDING_COOKIE));
    void reply.header('set-cookie', oauthBindingCookie(null, request.protocol === 'https')).header('cache-control', 'no-store');
    if (outcome.ok) {
      const where = outcome.dataCentre ? `${outcome.dataCentre} data centre, ` : '';
      await this.audit.record(
        { name: outcome.actor, role: 'admin' },
        { detail: `Zoho CRM connected (${where}API domain ${outcome.apiDomain})`, crm: 'record' },
      );
      await reply.status(303).header('location', '/admin/#connections').send();
      return;
    }
    await sendFailure(reply, outcome.status, outcome.reason);
  }
}

export async function sendFailure(reply: FastifyReply, status: number, reason: string, what = 'Zoho CRM'): Promise<void> {
  await reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(what)} not connected</title><link rel="stylesheet" href="/admin/style.css"></head>` +
        `<body><main><h1>${escapeHtml(what)} was not connected</h1><p>${escapeHtml(reason)}</p><p><a href="/admin/#connections">Back to the console</a></p></main></body></html>`,
    );
}
