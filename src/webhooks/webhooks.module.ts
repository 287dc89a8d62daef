import { Global, Module } from '@nestjs/common';
import { WebhookEventHandlers } from './event-handlers.js';

@Global()
@Module({ providers: [WebhookEventHandlers], exports: [WebhookEventHandlers] })
export class WebhooksModule {}
