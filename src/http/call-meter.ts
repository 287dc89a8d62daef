import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The requests sent to each system while a piece of work runs (a revenue check pass), counted by the outbound HTTP
 * client as it sends them: every try, a query's further pages and the reads an adapter makes on its own (an org's
 * describe, a Zoho pipeline) included, so the count is what the other side received. A call another piece of work
 * started is not counted here, even when this one waits for its answer.
 */
export class CallMeter {
  private readonly counts = new Map<string, number>();

  add(system: string, cost: number): void {
    this.counts.set(system, (this.counts.get(system) ?? 0) + cost);
  }

  /** What the calls sent to `system` so far cost (each one, unless its request says otherwise: a COQL query by its LIMIT). */
  of(system: string): number {
    return this.counts.get(system) ?? 0;
  }
}

const storage = new AsyncLocalStorage<CallMeter>();

/** Runs `work` with `meter` counting every request it sends. */
export function withCallMeter<T>(meter: CallMeter, work: () => Promise<T>): Promise<T> {
  return storage.run(meter, work);
}

/** Counts one request sent to `system` on the running work's meter, if any. */
export function meterCall(system: string, cost: number): void {
  storage.getStore()?.add(system, cost);
}
