import { MetadataScanner, type DiscoveryService } from '@nestjs/core';

export interface DecoratedMethod<Mark, Method> {
  mark: Mark;
  /** `Class.method`, for the start-up errors that name two of one kind. */
  source: string;
  /** The method, bound to its provider instance. */
  call: Method;
}

/**
 * Every method of every provider instance that carries a mark (`markOf` answers it, or nothing): how the daemon finds
 * its action handlers, maintenance tasks, readiness checks and record readers, instead of registering them by hand.
 * Each instance is looked at once (an alias, `useExisting`, is the same instance under a second token).
 */
export function decoratedMethods<Mark, Method extends (...args: never[]) => unknown>(
  discovery: DiscoveryService,
  markOf: (method: unknown) => Mark | undefined,
): Array<DecoratedMethod<Mark, Method>> {
  const scanner = new MetadataScanner();
  const seen = new Set<object>();
  const found: Array<DecoratedMethod<Mark, Method>> = [];
  for (const wrapper of discovery.getProviders()) {
    const instance = wrapper.isDependencyTreeStatic() ? (wrapper.instance as Record<string, unknown> | null | undefined) : undefined;
    if (!instance || typeof instance !== 'object' || seen.has(instance)) continue;
    seen.add(instance);
    const prototype = Object.getPrototypeOf(instance) as Record<string, unknown> | null;
    if (!prototype) continue;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const mark = markOf(prototype[name]);
      if (mark === undefined) continue;
      const method = prototype[name] as (...args: unknown[]) => unknown;
      found.push({ mark, source: `${instance.constructor.name}.${name}`, call: ((...args: unknown[]) => method.apply(instance, args)) as unknown as Method });
    }
  }
  return found;
}
