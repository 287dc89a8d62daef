import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { randomBytes } from 'node:crypto';
import { dashboardCsp, dashboardPage } from './dashboard.page.js';

/**
 * `GET /admin` (CONTRACT §5): the dashboard page. Served without auth since it holds no data; the page asks for the
 * admin token and calls the `/api` routes with it. Each answer gets a fresh CSP nonce for its inline style and script.
 */
@Controller('admin')
export class DashboardController {
  @Get()
  @ApiExcludeEndpoint()
  page(@Res({ passthrough: true }) reply: FastifyReply): string {
    const nonce = randomBytes(16).toString('base64');
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', dashboardCsp(nonce))
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer');
    return dashboardPage(nonce);
  }
}
