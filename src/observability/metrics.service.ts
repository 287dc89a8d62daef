import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The daemon's Prometheus metrics, on a registry of its own (several apps may share a process in tests). */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();

  readonly webhooksReceived = new Counter({
    name: 'crm_sync_webhooks_received_total',
    help: 'Webhook deliveries by endpoint and outcome (accepted, duplicate, ignored, rejected, unavailable).',
    labelNames: ['endpoint', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly webhookToleratedFields = new Counter({
    name: 'crm_sync_webhook_tolerated_fields_total',
    help: 'Fields of accepted deliveries outside the documented shape, by event, field and kind (unknown_value, null, inexact_number).',
    labelNames: ['event', 'field', 'kind'] as const,
    registers: [this.registry],
  });

  readonly relayed = new Counter({
    name: 'crm_sync_relayed_total',
    help: 'Stored work the relay put on a queue, by kind (delivery, action).',
    labelNames: ['work'] as const,
    registers: [this.registry],
  });

  readonly relayBursting = new Gauge({
    name: 'crm_sync_relay_bursting',
    help: '1 while webhooks arrive in a burst and the relay holds their routing back (answers come first), else 0.',
    registers: [this.registry],
  });

  readonly jobs = new Counter({
    name: 'crm_sync_jobs_total',
    help: 'Job runs by queue, kind and result (succeeded, skipped, retrying, failed).',
    labelNames: ['queue', 'kind', 'result'] as const,
    registers: [this.registry],
  });

  readonly jobDuration = new Histogram({
    name: 'crm_sync_job_duration_seconds',
    help: 'Duration of one job run.',
    labelNames: ['queue', 'kind'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });

  readonly outboundRequests = new Counter({
    name: 'crm_sync_outbound_requests_total',
    help: 'Calls to the service and the CRMs by system and status (HTTP status, or timeout/network).',
    labelNames: ['system', 'status'] as const,
    registers: [this.registry],
  });

  readonly outboundDuration = new Histogram({
    name: 'crm_sync_outbound_request_duration_seconds',
    help: 'Duration of calls to the service and the CRMs.',
    labelNames: ['system'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'crm_sync_' });
  }
}
