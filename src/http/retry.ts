import type { RetryPolicy } from '../config/app-config.js';
import { OutboundError } from './outbound-error.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `call`, trying again on transient failures with exponential backoff and full jitter, honouring a
 * Retry-After up to `maxInlineRetryAfterMs`. A longer Retry-After, or running out of tries, throws the last
 * error so that the queue delays the whole action instead of holding a worker.
 */
export async function withRetries<T>(call: (attempt: number) => Promise<T>, policy: RetryPolicy): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call(attempt);
    } catch (err) {
      if (!(err instanceof OutboundError) || !err.transient || attempt >= policy.attempts) throw err;
      if (err.retryAfterMs !== undefined && err.retryAfterMs > policy.maxInlineRetryAfterMs) throw err;
      const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      const jittered = exponential / 2 + Math.random() * (exponential / 2);
      await sleep(Math.max(jittered, err.retryAfterMs ?? 0));
    }
  }
}
