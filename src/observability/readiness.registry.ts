import { Injectable } from '@nestjs/common';

/**
 * What a module adds to `GET /health/ready`. `down` makes the daemon not ready (503); `degraded` is a warning that
 * keeps it ready (a CRM whose credentials were refused still lets webhooks be stored).
 */
export type ReadinessOutcome = { status: 'up' | 'degraded' | 'down'; message?: string };

@Injectable()
export class ReadinessRegistry {
  private readonly checks = new Map<string, () => Promise<ReadinessOutcome>>();

  register(name: string, check: () => Promise<ReadinessOutcome>): void {
    this.checks.set(name, check);
  }

  entries(): Array<[string, () => Promise<ReadinessOutcome>]> {
    return [...this.checks.entries()];
  }
}
