/** An error that knows how long to wait before the next try (a Retry-After from the other side). */
export interface HasRetryAfter {
  retryAfterMs?: number;
}

/**
 * The `retry-after` backoff of every queue: exponential with full jitter from `baseMs`, capped at `maxMs`,
 * but never shorter than a Retry-After the failing system asked for.
 */
export function retryAfterBackoff(baseMs: number, maxMs = 15 * 60_000) {
  return (attemptsMade: number, _type?: string, err?: Error): number => {
    const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, attemptsMade - 1));
    const jittered = exponential / 2 + Math.random() * (exponential / 2);
    const asked = (err as HasRetryAfter | undefined)?.retryAfterMs ?? 0;
    return Math.round(Math.max(jittered, asked));
  };
}
