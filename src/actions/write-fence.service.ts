import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { SyncLogRepository } from '../sync-log/sync-log.repository.js';
import type { SyncLogEntry } from '../sync-log/sync-log.row.js';

/**
 * A write a CRM may apply after its sender stopped waiting (a time-out, a replica stopped or killed in the middle of
 * it) cannot be called back. An action that looks before it writes (an attachment once, a note once) notes in its entry
 * when it sends such a write, and a later run of the entry looks only once that write would have landed: twice its
 * time-out after it was sent, as a run waits for its own unanswered write (withRetries). Without it, a run handed on
 * by a stopped replica looked at once, found nothing, and wrote a second copy.
 */
@Injectable()
export class WriteFenceService {
  constructor(private readonly syncLog: SyncLogRepository) {}

  /** Waits until the `write` an earlier run of the entry sent would have landed (nothing to wait for: at once). */
  async afterEarlierRuns(entry: { payload: object }, write: string, timeoutMs: number): Promise<void> {
    await untilLanded(Number((entry.payload as Record<string, unknown>)[sentAtKey(write)]), timeoutMs);
  }

  /** The entry sends its `write` now. */
  async sending(entry: Pick<SyncLogEntry, 'id'>, write: string, detail: string): Promise<void> {
    await this.syncLog.saveProgress(entry.id, { [sentAtKey(write)]: Date.now() }, detail);
  }
}

const sentAtKey = (write: string) => `${write}SentAt`;

/**
 * Waits until a write sent at `sentAtMs` (epoch ms; undefined or not a number: none was sent) and never answered would
 * have landed: twice its time-out after it was sent, the time-out and then as long again, as a run waits for its own
 * unanswered write.
 */
export async function untilLanded(sentAtMs: number | undefined, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const waitMs = sentAtMs !== undefined && Number.isFinite(sentAtMs) ? sentAtMs + 2 * timeoutMs - Date.now() : 0;
  if (waitMs > 0) await sleep(waitMs, undefined, { signal });
}
