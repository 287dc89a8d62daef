import { Injectable, SetMetadata, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { decoratedMethods } from '../discovery/decorated-methods.js';

/**
 * What a module adds to `GET /health/ready`. `down` makes the daemon not ready (503); `degraded` is a warning that
 * keeps it ready (a CRM whose credentials were refused still lets webhooks be stored).
 */
export type ReadinessOutcome = { status: 'up' | 'degraded' | 'down'; message?: string };

type Check = () => Promise<ReadinessOutcome>;

const READINESS_CHECK = 'crm-sync:readiness-check';

/** The check name a method was marked with, if it was. */
export function readinessCheckOf(method: unknown): string | undefined {
  return typeof method === 'function' ? (Reflect.getMetadata(READINESS_CHECK, method) as string | undefined) : undefined;
}

/**
 * Marks a provider's method as a readiness check named `name` in `GET /health/ready`. ReadinessRegistry finds it among
 * the providers at start; two checks of one name stop the start.
 */
export function ReadinessCheck(name: string) {
  return <M extends Check>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<M>): void => {
    SetMetadata(READINESS_CHECK, name)(target, key, descriptor);
  };
}

/** The `@ReadinessCheck` methods of the app's providers, found by scanning at start. */
@Injectable()
export class ReadinessRegistry implements OnModuleInit {
  private readonly checks = new Map<string, { check: Check; source: string }>();

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    for (const { mark: name, source, call } of decoratedMethods<string, Check>(this.discovery, readinessCheckOf)) {
      const other = this.checks.get(name);
      if (other) throw new Error(`two readiness checks named ${name}: ${other.source} and ${source}`);
      this.checks.set(name, { check: call, source });
    }
  }

  entries(): Array<[string, Check]> {
    return [...this.checks.entries()].map(([name, { check }]) => [name, check]);
  }
}
