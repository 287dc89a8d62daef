import { Injectable } from '@nestjs/common';
import { hash } from 'node:crypto';
import { RelaySignalService } from '../queues/relay-signal.service.js';
import type { InboxStatus, WebhookEndpoint } from './inbox.row.js';
import { InboxRepository, type DeliveryToStore, type StoredDelivery } from './inbox.repository.js';

const MAX_BATCH = 256;
/**
 * One write at a time: what arrives meanwhile waits for it and goes in the next, so a burst is stored in few, large
 * transactions. A commit costs Postgres as much as several rows, and each round trip wakes both processes; under
 * load two writes in flight cost every process on the machine about a fifth more per delivery than one.
 */
const MAX_WRITES_IN_FLIGHT = 1;

interface PendingWrite extends DeliveryToStore {
  windowSeconds: number;
  resolve: (result: StoredDelivery) => void;
  reject: (err: unknown) => void;
}

/** What makes two deliveries equal for the dedupe window: the same bytes at the same endpoint. */
export function deliveryHash(endpoint: WebhookEndpoint, raw: Buffer): Buffer {
  return hash('sha256', Buffer.concat([Buffer.from(`${endpoint}\n`), raw]), 'buffer');
}

/** The intake's writer to the durable inbox. It only stores; the relay puts what it stored on the route queue. */
@Injectable()
export class InboxService {
  private readonly pendingWrites: PendingWrite[] = [];
  private writesInFlight = 0;

  constructor(
    private readonly inbox: InboxRepository,
    private readonly relay: RelaySignalService,
  ) {}

  /**
   * Stores a delivery unless an equal one (same endpoint, same bytes) was stored within the window. Deliveries that
   * arrive while a write is in flight are stored together in the next one: one commit for many webhooks, and no
   * added wait when traffic is light. Equal deliveries racing each other are serialised in Postgres.
   */
  store(endpoint: WebhookEndpoint, event: string | null, raw: Buffer, status: InboxStatus, windowSeconds: number): Promise<StoredDelivery> {
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
    let stored: StoredDelivery[];
    try {
      stored = await this.inbox.storeBatch(batch, batch[0].windowSeconds);
    } catch (err) {
      batch.forEach((w) => w.reject(err));
      return;
    }
    this.relay.deliveriesStored(
      batch.length,
      batch.some((w, i) => w.status === 'received' && !stored[i].duplicate),
    );
    batch.forEach((w, i) => w.resolve(stored[i]));
  }
}
