import { Controller, Headers, HttpCode, Inject, Logger, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ALERT_SINK, type AlertSink } from '../alerts/alert-sink.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { WebhookSecrets } from '../config/connection-settings.js';
import { ConnectionsService } from '../connections/connections.service.js';
import { MetricsService } from '../observability/metrics.service.js';
import type { WebhookEndpoint } from './inbox.row.js';
import { InboxService } from './inbox.service.js';
import { parseDelivery } from './parse-delivery.js';
import { verifySignature } from './signature.js';
import { toleratedFields } from './tolerance.js';

type SecretsOf = (secrets: WebhookSecrets) => string[];
type Answer = { status: number; body: Record<string, unknown>; outcome: string };

/**
 * The service's webhooks. A delivery is verified over its raw bytes, judged, stored in Postgres and only then
 * answered; routing happens on a queue, so the answer never waits for a CRM.
 */
@ApiTags('webhooks')
@Controller('webhooks')
export class WebhooksController {
  private readonly logger = new Logger('webhooks');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly inbox: InboxService,
    private readonly connections: ConnectionsService,
    private readonly metrics: MetricsService,
    /** Told when a delivery is refused with 503 (AlertsModule); it records and sends in the background. */
    @Inject(ALERT_SINK) private readonly alerts: AlertSink,
  ) {}

  @Post('events')
  @HttpCode(200)
  @ApiOperation({ summary: 'Events webhook ({event, data}), signed with WEBHOOK_SECRETS_EVENTS.' })
  events(@Req() req: FastifyRequest, @Headers('service-signature') signature: string | undefined, @Res() reply: FastifyReply) {
    return this.receive('events', (s) => s.events, req, signature, reply);
  }

  @Post('appointment-crm/export-prompt')
  @HttpCode(200)
  @ApiOperation({ summary: 'Appointment CRM export-prompt webhook, signed with WEBHOOK_SECRETS_APPOINTMENT_PROMPT.' })
  appointmentPrompt(@Req() req: FastifyRequest, @Headers('service-signature') signature: string | undefined, @Res() reply: FastifyReply) {
    return this.receive('appointment-prompt', (s) => s.appointmentPrompt, req, signature, reply);
  }

  @Post('record-crm/export-prompt')
  @HttpCode(200)
  @ApiOperation({ summary: 'Record CRM export-prompt webhook, signed with WEBHOOK_SECRETS_RECORD_PROMPT.' })
  recordPrompt(@Req() req: FastifyRequest, @Headers('service-signature') signature: string | undefined, @Res() reply: FastifyReply) {
    return this.receive('record-prompt', (s) => s.recordPrompt, req, signature, reply);
  }

  private async receive(
    endpoint: WebhookEndpoint,
    secretsOf: SecretsOf,
    req: FastifyRequest,
    signature: string | undefined,
    reply: FastifyReply,
  ): Promise<void> {
    const answer = await this.judge(endpoint, secretsOf, req, signature);
    this.metrics.webhooksReceived.inc({ endpoint, outcome: answer.outcome });
    await reply.status(answer.status).send(answer.body);
  }

  private async judge(endpoint: WebhookEndpoint, secretsOf: SecretsOf, req: FastifyRequest, signature: string | undefined): Promise<Answer> {
    let secrets: string[];
    try {
      const configured = await this.connections.get('webhooks');
      secrets = configured ? secretsOf(configured) : [];
    } catch {
      // The console's secrets cannot be read (the database is down): the service must deliver it again.
      return { status: 503, body: { error: 'the webhook secrets cannot be read now; please retry' }, outcome: 'unavailable' };
    }
    if (secrets.length === 0) {
      return { status: 404, body: { error: 'this webhook is not configured (no secret set)' }, outcome: 'rejected' };
    }
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const check = verifySignature(signature, raw, secrets, this.config.webhooks.toleranceSeconds);
    if (!check.ok) return { status: 401, body: { error: check.reason }, outcome: 'unauthorized' };

    const parsed = parseDelivery(endpoint, raw);
    const window = this.config.webhooks.dedupeWindowSeconds;
    try {
      if (parsed.kind === 'invalid') {
        // Kept for the admin (status failed, never routed), but the service is told the body is wrong.
        await this.inbox.store(endpoint, parsed.event, raw, 'failed', window);
        return { status: 400, body: { error: parsed.reason }, outcome: 'invalid' };
      }
      if (parsed.kind === 'unknown') {
        const stored = await this.inbox.store(endpoint, parsed.event, raw, 'ignored', window);
        return { status: 200, body: { status: stored.duplicate ? 'duplicate' : 'ignored' }, outcome: 'ignored' };
      }
      const stored = await this.inbox.store(endpoint, parsed.event, raw, 'received', window);
      if (stored.duplicate) return { status: 200, body: { status: 'duplicate' }, outcome: 'duplicate' };
      this.noteTolerated(parsed.event, parsed.data as unknown as Record<string, unknown>);
      return { status: 200, body: { status: 'accepted' }, outcome: 'accepted' };
    } catch {
      // Not stored: the service must deliver it again.
      this.alerts.notify('webhooks_unavailable', { detail: `a delivery to /webhooks/${endpoint} could not be stored` });
      return { status: 503, body: { error: 'the delivery could not be stored; please retry' }, outcome: 'unavailable' };
    }
  }

  private noteTolerated(event: string, data: Record<string, unknown>): void {
    const fields = toleratedFields(event, data);
    if (fields.length === 0) return;
    for (const { field, kind } of fields) this.metrics.webhookToleratedFields.inc({ event, field, kind });
    this.logger.warn(`${event} taken with fields outside the documented shape: ${fields.map((f) => `${f.field} (${f.kind})`).join(', ')}`);
  }
}
