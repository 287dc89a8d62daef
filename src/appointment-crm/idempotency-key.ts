import { createHash } from 'node:crypto';
import type { IdempotencyKey } from './appointment-crm.js';

const MAX_LENGTH = 200;

/**
 * The Idempotency-Key of one write of a sync action: `crm-sync:<entry id>:<step>[:<what>]`. The entry id is the
 * fact's stable identity (a retry, a job run again and an admin's retry run the same entry), so every try of
 * the write sends the same key, and the CRM can answer a repeat with its first answer. `what` (a file name or id)
 * is percent-encoded, since a header is ASCII; a key that would grow past 200 characters ends in a hash instead.
 */
export function idempotencyKey(entryId: string, step: string, what?: string): IdempotencyKey {
  const key = `crm-sync:${entryId}:${step}${what === undefined ? '' : `:${encodeURIComponent(what)}`}`;
  if (key.length <= MAX_LENGTH) return key;
  const digest = createHash('sha256').update(key).digest('hex');
  return `${key.slice(0, MAX_LENGTH - digest.length - 1)}~${digest}`;
}

/**
 * The key of one write of an entry: the entry's own (above) until an admin retries it, then the retry's
 * (`retry-<n>:<step>`, n the entry's retry base, the runs before the retry). The contract's CRM keeps its first answer
 * to a key for a day, failures such as a 404 included: under the entry's own key, a retry of a push that failed because
 * the appointment was not there yet would be answered with that 404 again, the write never tried. A retry is a person's
 * decision after crm-sync gave up; every try within it still sends one key.
 */
export function entryKey(entry: { id: string; retryBase: number }, step: string, what?: string): IdempotencyKey {
  return idempotencyKey(entry.id, entry.retryBase > 0 ? `retry-${entry.retryBase}:${step}` : step, what);
}
