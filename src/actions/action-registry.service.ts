import { Injectable, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { decoratedMethods } from '../discovery/decorated-methods.js';
import { ACTION_KINDS, type ActionKind, type CrmName } from '../domain/actions.js';
import type { ActionQueueName } from '../queues/queues.js';
import type { RegisteredHandler } from './action.types.js';
import { runsActionOf } from './runs-action.decorator.js';

const ANY_CRM = '*';
const keyOf = (kind: string, crm: string | null | undefined) => `${crm ?? ANY_CRM}:${kind}`;

/** The reason of an action that no handler runs (a kind recorded by another version of crm-sync). */
export const noHandlerFor = (kind: string): string => `no handler for action kind ${kind}`;

/**
 * Which handler runs which action: the `@RunsAction` methods of every provider of the application, found at start
 * (as the router finds the `@DeliveryHandler` providers). Several CRMs share kind names (both add notes), so an
 * action is matched on its kind and CRM, then on its kind alone for handlers that serve every CRM. Once every module
 * is initialised (application bootstrap, before the database is connected and so before any job runs) it checks
 * that every kind has its handler, and only one (both CRM modules are always loaded: a CRM connected later from the
 * console needs no restart).
 */
@Injectable()
export class ActionRegistryService implements OnModuleInit, OnApplicationBootstrap {
  private readonly handlers = new Map<string, RegisteredHandler>();

  constructor(private readonly discovery: DiscoveryService) {}

  /** Adds every `@RunsAction` method of every provider instance. */
  onModuleInit(): void {
    for (const { mark, source, call } of decoratedMethods<NonNullable<ReturnType<typeof runsActionOf>>, RegisteredHandler['run']>(
      this.discovery,
      runsActionOf,
    )) {
      this.add({ ...mark, name: source, run: call });
    }
  }

  onApplicationBootstrap(): void {
    this.assertEveryKindHandled();
  }

  handlerFor(kind: string, crm: CrmName | null): RegisteredHandler | undefined {
    return (crm ? this.handlers.get(keyOf(kind, crm)) : undefined) ?? this.handlers.get(keyOf(kind, ANY_CRM));
  }

  queueFor(kind: string, crm: CrmName | null): ActionQueueName | undefined {
    return this.handlerFor(kind, crm)?.queue;
  }

  private add(handler: RegisteredHandler): void {
    const key = keyOf(handler.kind, handler.crm);
    const other = this.handlers.get(key);
    if (other) throw new Error(`two handlers for action kind ${handler.kind} (${handler.crm ?? 'any CRM'}): ${other.name} and ${handler.name}`);
    this.handlers.set(key, handler);
  }

  private assertEveryKindHandled(): void {
    const missing: string[] = [];
    for (const [kind, runBy] of Object.entries(ACTION_KINDS) as Array<[ActionKind, (typeof ACTION_KINDS)[ActionKind]]>) {
      if (runBy === 'never run') continue;
      if (runBy === 'core') {
        if (!this.handlerFor(kind, null)) missing.push(kind);
        continue;
      }
      for (const crm of runBy) if (!this.handlerFor(kind, crm)) missing.push(`${kind} (${crm})`);
    }
    if (missing.length > 0) throw new Error(`no handler for action kind(s): ${missing.join(', ')}`);
  }
}
