import { Logger } from '@nestjs/common';
import { loadConfig } from '../../src/config/app-config.js';
import { MetricsService } from '../../src/observability/metrics.service.js';
import { OutboundError } from '../../src/http/outbound-error.js';
import { SharedRedisService } from '../../src/queues/shared-redis.service.js';
import { ZohoUsage } from '../../src/record-crm/zoho/zoho-usage.js';
import { ZohoClient } from '../../src/record-crm/zoho/zoho.client.js';
import { ServiceSim } from '../../sim/service/service-sim.js';
import { ZohoSim } from '../../sim/zoho/index.js';
import { environmentConnections } from './environment-connections.js';
import { baseEnv, fastRetries, removeQueueKeys } from './harness.js';

const REDIS_DB = 1;

/**
 * Zoho adapters on their own (no app) against the Zoho simulator, over real HTTP: what the adapter's e2e files
 * share. Each client has a queue prefix of its own; `stop` removes their keys.
 */
export class ZohoClients {
  readonly zoho = new ZohoSim();
  readonly service = new ServiceSim();
  private readonly shared: SharedRedisService[] = [];
  private readonly prefixes: string[] = [];
  /** Each client's counter of Zoho calls (the day's total it reads is shared by clients of one QUEUE_PREFIX). */
  readonly usage = new Map<ZohoClient, ZohoUsage>();
  private readonly metrics = new Map<ZohoClient, MetricsService>();

  async start(): Promise<void> {
    Logger.overrideLogger(false);
    await Promise.all([this.zoho.start(), this.service.start()]);
  }

  /** A client with the simulator's refresh token (or the one in `env`), retrying fast. */
  client(env: Record<string, string> = {}): ZohoClient {
    const config = loadConfig({
      ...baseEnv(this.service, 'postgres://unused@127.0.0.1/x', REDIS_DB),
      ...this.zoho.daemonEnv(),
      ...env,
    });
    fastRetries(config);
    this.prefixes.push(config.queuePrefix);
    const redis = new SharedRedisService(config);
    this.shared.push(redis);
    const metrics = new MetricsService();
    const usage = new ZohoUsage(config, metrics, redis);
    const client = new ZohoClient(config, environmentConnections(config), metrics, redis, { notify: () => undefined }, usage);
    this.usage.set(client, usage);
    this.metrics.set(client, metrics);
    return client;
  }

  /** The Prometheus text of a client's metrics. */
  metricsOf(client: ZohoClient): Promise<string> {
    return this.metrics.get(client)!.registry.metrics();
  }

  async stop(): Promise<void> {
    for (const prefix of this.prefixes) await removeQueueKeys(REDIS_DB, prefix);
    for (const redis of this.shared) redis.onApplicationShutdown();
    await Promise.all([this.zoho.stop(), this.service.stop()]);
  }
}

/** The OutboundError a call fails with (the test fails when it succeeds or fails otherwise). */
export async function failureOf(call: Promise<unknown>): Promise<OutboundError> {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OutboundError);
  return err as OutboundError;
}
