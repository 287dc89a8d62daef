import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RecordNotificationsService } from './record-notifications.service.js';

/** Zoho's notifications of the record CRM automation's channel (`notify_url`), checked by the channel's token. */
@Controller('webhooks/record-crm')
export class RecordNotificationsController {
  constructor(private readonly notifications: RecordNotificationsService) {}

  @Post('notifications')
  @HttpCode(200)
  @ApiExcludeEndpoint()
  async receive(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const answer = await this.notifications.receive(raw);
    await reply.status(answer.status).send(answer.body);
  }
}
