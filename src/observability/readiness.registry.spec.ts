import { Injectable, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { ReadinessCheck, ReadinessRegistry, type ReadinessOutcome } from './readiness.registry.js';

@Injectable()
class QueueCheck {
  @ReadinessCheck('queue')
  async queue(): Promise<ReadinessOutcome> {
    return { status: 'degraded', message: 'slow' };
  }

  async notACheck(): Promise<ReadinessOutcome> {
    return { status: 'down' };
  }
}

/** A module class's own method, as the CRM modules mark theirs. */
@Module({})
class CrmModule {
  @ReadinessCheck('crm')
  async ready(): Promise<ReadinessOutcome> {
    return { status: 'up' };
  }
}

@Injectable()
class QueueCheckAgain {
  @ReadinessCheck('queue')
  async again(): Promise<ReadinessOutcome> {
    return { status: 'up' };
  }
}

async function registryWith(providers: Array<new (...args: never[]) => object>) {
  const moduleRef = await Test.createTestingModule({ imports: [DiscoveryModule, CrmModule], providers: [ReadinessRegistry, ...providers] }).compile();
  await moduleRef.init();
  return moduleRef.get(ReadinessRegistry);
}

describe(ReadinessRegistry.name, () => {
  it('finds every @ReadinessCheck method of the providers and module classes, and runs it on its instance', async () => {
    const registry = await registryWith([QueueCheck]);
    const entries = registry.entries();
    expect(entries.map(([name]) => name).sort()).toEqual(['crm', 'queue']);
    const outcomes = await Promise.all(entries.map(async ([name, check]) => [name, await check()]));
    expect(Object.fromEntries(outcomes)).toEqual({ crm: { status: 'up' }, queue: { status: 'degraded', message: 'slow' } });
  });

  it('stops the start when two checks share a name, naming both', async () => {
    await expect(registryWith([QueueCheck, QueueCheckAgain])).rejects.toThrow('two readiness checks named queue: QueueCheck.queue and QueueCheckAgain.again');
  });
});
