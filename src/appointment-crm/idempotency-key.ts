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
