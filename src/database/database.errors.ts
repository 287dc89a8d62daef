/** Thrown when Postgres is not (yet) reachable; HTTP routes turn it into 503. */
export class DatabaseUnavailableError extends Error {
  constructor(reason: string) {
    super(`database unavailable: ${reason}`);
    this.name = 'DatabaseUnavailableError';
  }
}
