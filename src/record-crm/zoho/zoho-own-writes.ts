import { Injectable } from '@nestjs/common';
import { SharedRedisService } from '../../queues/shared-redis.service.js';
import type { RecordModule } from '../../service-api/service-api.types.js';

/** How long a write of crm-sync's own waits for Zoho's notification of it. */
const KEPT_SECONDS = 600;
/** Fields Zoho's callback may name beside the written ones, changed by any write. */
const SYSTEM_FIELDS = new Set(['Modified_Time', 'Modified_By', 'Last_Activity_Time']);

/**
 * crm-sync's own writes to Zoho records, so that Zoho's notification of one (Zoho notifies every update, whoever made
 * it) is known without reading the record: Zoho's callback names the fields each update changed (`affected_fields`,
 * `[{"<record id>": ["Amount", …]}]`, Zoho's Notifications overview), and an update whose fields are all ones crm-sync
 * has just written is its own. Kept in Redis (every replica sees them), the fields of a record until a notification
 * takes them or 10 minutes pass; without Redis nothing is recognised and the record is read, as before.
 */
@Injectable()
export class ZohoOwnWrites {
  constructor(private readonly shared: SharedRedisService) {}

  /** Notes the fields crm-sync is about to write to a record (before the write: the notification may come first). */
  async writing(module: RecordModule, id: string, fields: string[]): Promise<void> {
    if (!this.shared.reachable || fields.length === 0) return;
    const key = this.key(module, id);
    await this.shared.client
      .multi()
      .sadd(key, ...fields)
      .expire(key, KEPT_SECONDS)
      .exec()
      .catch(() => undefined);
  }

  /**
   * Whether an update Zoho notified, changing `changed` on the record, is crm-sync's own write: every field it names is
   * one crm-sync wrote (or one any write changes). Taken once: a later update of the same fields is read.
   */
  async ownUpdate(module: RecordModule, id: string, changed: readonly string[]): Promise<boolean> {
    const named = changed.filter((f) => !SYSTEM_FIELDS.has(f));
    if (named.length === 0 || !this.shared.reachable) return false;
    const key = this.key(module, id);
    const written = new Set(await this.shared.client.smembers(key).catch(() => [] as string[]));
    if (!named.every((f) => written.has(f))) return false;
    await this.shared.client.del(key).catch(() => undefined);
    return true;
  }

  private key(module: RecordModule, id: string): string {
    return this.shared.key('zoho-own-write', module, id);
  }
}
