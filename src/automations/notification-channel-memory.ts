import { createHash, timingSafeEqual } from 'node:crypto';
import type { RecordModule } from '../service-api/service-api.types.js';

/** What a notification is checked against: the channel's id, module, and the sha256 of its token (never the token). */
export interface KnownChannel {
  channelId: string;
  module: RecordModule;
  tokenDigest: Buffer;
}

export const tokenDigest = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/**
 * This replica's memory of the notification channel, for `ttlMs`: the route's front door. Anyone may POST to the
 * route, so a notification is checked against this before Postgres is read or the token's seal is opened; the
 * memory is filled from there at most once a `ttlMs` (concurrent callers share one fill), "no channel" included.
 * The replica that makes, renews or removes the channel sets it at once; the others learn within `ttlMs`.
 */
export class NotificationChannelMemory {
  private known: { channel: KnownChannel | null; until: number } | null = null;
  private filling: Promise<KnownChannel | null> | null = null;

  constructor(
    private readonly load: () => Promise<KnownChannel | null>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The channel as remembered, filled from `load` when the memory is older than `ttlMs`. A failed fill is not kept. */
  current(): Promise<KnownChannel | null> {
    if (this.known && this.now() < this.known.until) return Promise.resolve(this.known.channel);
    this.filling ??= this.load()
      .then((channel) => {
        this.set(channel);
        return channel;
      })
      .finally(() => (this.filling = null));
    return this.filling;
  }

  set(channel: KnownChannel | null): void {
    this.known = { channel, until: this.now() + this.ttlMs };
  }

  /** Whether a notification names the channel and carries its token (compared in constant time). */
  static admits(channel: KnownChannel | null, channelId: string | null, token: unknown): channel is KnownChannel {
    if (!channel || channelId !== channel.channelId || typeof token !== 'string') return false;
    return timingSafeEqual(tokenDigest(token), channel.tokenDigest);
  }
}
