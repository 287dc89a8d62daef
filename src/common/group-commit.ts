/**
 * Writes that many callers make at the same moment, carried by one statement per round (a group commit): the first
 * caller's write starts at once, and what arrives while it runs goes into the next statement together. Each caller's
 * promise settles with the statement that carried its items, so awaiting `add` is as durable as a write of its own;
 * a failed statement fails every caller it carried (each retries as it would have alone).
 *
 * Routing runs several deliveries at once, and each commit waits for the WAL to reach the disk: one statement for
 * the facts of eight deliveries costs about what one costs.
 */
export class GroupCommit<T> {
  private waiting: Array<{ items: T[]; settle: (error?: unknown) => void }> = [];
  private writing = false;

  constructor(private readonly write: (items: T[]) => Promise<void>) {}

  add(items: T[]): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiting.push({ items, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!this.writing) void this.writeRounds();
    });
  }

  private async writeRounds(): Promise<void> {
    this.writing = true;
    while (this.waiting.length > 0) {
      const round = this.waiting.splice(0);
      let failure: unknown;
      try {
        await this.write(round.flatMap((caller) => caller.items));
      } catch (error) {
        failure = error ?? new Error('the grouped write failed');
      }
      for (const caller of round) caller.settle(failure);
    }
    this.writing = false;
  }
}
