import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { hash } from 'node:crypto';
import { DatabaseService } from '../database/database.service.js';
import { addUnlessLive } from '../queues/jobs.js';
import { QUEUES, routeDeliveryJob } from '../queues/queues.js';
import { InboxDelivery, type InboxStatus, type WebhookEndpoint } from './inbox.entity.js';

const MAX_BATCH = 256;
/**
 * One write at a time: what arrives meanwhile waits for it and goes in the next, so a burst is stored in few, large
 * transactions. A commit costs Postgres as much as several rows, and each round trip wakes both processes; under
 * load two writes in flight cost every process on the machine about a fifth more per delivery than one.
 */
const MAX_WRITES_IN_FLIGHT = 1;

interface PendingWrite {
  endpoint: WebhookEndpoint;
  event: string | null;
  raw: Buffer;
  hash: Buffer;
  status: InboxStatus;
  windowSeconds: number;
  resolve: (result: { id: string; duplicate: boolean }) => void;
  reject: (err: unknown) => void;
}

/** What makes two deliveries equal for the dedupe window: the same bytes at the same endpoint. */
export function deliveryHash(endpoint: WebhookEndpoint, raw: Buffer): Buffer {
  return hash('sha256', Buffer.concat([Buffer.from(`${endpoint}\n`), raw]), 'buffer');
}

/** The durable inbox of webhook deliveries, and their route jobs. */
@Injectable()
export class InboxService {
  private readonly pendingWrites: PendingWrite[] = [];
  private writesInFlight = 0;
  /** Deliveries handed to `store` since start: the intake's pace, read by the route feeder. */
  private deliveriesReceived = 0;

  constructor(
    private readonly database: DatabaseService,
    @InjectQueue(QUEUES.webhooks) private readonly queue: Queue,
  ) {}

  /**
   * Stores a delivery unless an equal one (same endpoint, same bytes) was stored within the window. Deliveries that
   * arrive while a write is in flight are stored together in the next one: one commit for many webhooks, and no
   * added wait when traffic is light. Equal deliveries racing each other are serialised in Postgres.
   */
  store(endpoint: WebhookEndpoint, event: string | null, raw: Buffer, status: InboxStatus, windowSeconds: number): Promise<{ id: string; duplicate: boolean }> {
    this.deliveriesReceived++;
    return new Promise((resolve, reject) => {
      this.pendingWrites.push({ endpoint, event, raw, hash: deliveryHash(endpoint, raw), status, windowSeconds, resolve, reject });
      this.startWrites();
    });
  }

  private startWrites(): void {
    while (this.writesInFlight < MAX_WRITES_IN_FLIGHT && this.pendingWrites.length > 0) {
      const batch = this.pendingWrites.splice(0, MAX_BATCH);
      this.writesInFlight++;
      void this.write(batch).finally(() => {
        this.writesInFlight--;
        this.startWrites();
      });
    }
  }

  private async write(batch: PendingWrite[]): Promise<void> {
    try {
      const rows = await this.database.prepared<{ idx: number; delivery_id: string; duplicate: boolean }>(
        'crm_sync_store_deliveries',
        'SELECT idx, delivery_id, duplicate FROM crm_sync_store_deliveries($1, $2, $3, $4, $5, $6)',
        [
          batch.map((w) => w.endpoint),
          batch.map((w) => w.event),
          batch.map((w) => w.raw),
          batch.map((w) => w.hash),
          batch.map((w) => w.status),
          batch[0].windowSeconds,
        ],
      );
      for (const row of rows) batch[row.idx - 1].resolve({ id: String(row.delivery_id), duplicate: row.duplicate });
    } catch (err) {
      batch.forEach((w) => w.reject(err));
    }
  }

  get received(): number {
    return this.deliveriesReceived;
  }

  get(id: string): Promise<InboxDelivery | null> {
    return this.database.repo(InboxDelivery).findOneBy({ id });
  }

  /** Puts the delivery's route job on the queue unless a live one is there (a finished one is replaced). */
  async enqueue(inboxId: string, delayMs = 0): Promise<void> {
    const { name, data, jobId } = routeDeliveryJob(inboxId);
    await addUnlessLive(this.queue, name, data, jobId, { delay: delayMs });
  }

  /** A page of the deliveries stored but not routed, untouched for `olderThanMs`, after inbox id `afterId`. */
  async unrouted(olderThanMs: number, limit: number, afterId = '0'): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.database.query(
      `SELECT id FROM webhook_inbox WHERE status = 'received' AND received_at <= now() - make_interval(secs => $1) AND id > $3
        ORDER BY id LIMIT $2`,
      [olderThanMs / 1000, limit, afterId],
    );
    return rows.map((r) => String(r.id));
  }
}
