import { getQueueToken } from '@nestjs/bullmq';
import { jest } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DatabaseService } from '../database/database.service.js';
import { MaintenanceTask } from './maintenance-task.decorator.js';
import type { MaintenanceTrigger } from './maintenance-task.decorator.js';
import { MaintenanceTasksService } from './maintenance.service.js';
import { QUEUES } from './queues.js';

const config = { retention: { everyMs: 86_400_000 }, reconcileIntervalSeconds: 0 } as unknown as AppConfig;

@Injectable()
class Sweeps {
  readonly runs: MaintenanceTrigger[] = [];

  @MaintenanceTask('retention', { every: (c) => c.retention.everyMs })
  async retention(trigger: MaintenanceTrigger): Promise<void> {
    this.runs.push(trigger);
  }

  @MaintenanceTask('reconcile', { every: (c) => c.reconcileIntervalSeconds * 1000, firstRunAfterOnePeriod: true })
  async reconcile(): Promise<void> {}

  async notATask(): Promise<void> {}
}

@Injectable()
class SweepsAgain {
  @MaintenanceTask('retention', { every: () => 1000 })
  async retention(): Promise<void> {}
}

async function tasksWith(providers: Array<new (...args: never[]) => object>) {
  const queue = { upsertJobScheduler: jest.fn(async () => undefined), removeJobScheduler: jest.fn(async () => true) };
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule],
    providers: [
      MaintenanceTasksService,
      { provide: getQueueToken(QUEUES.maintenance), useValue: queue },
      { provide: DatabaseService, useValue: { whenReady: async () => undefined } },
      { provide: APP_CONFIG, useValue: config },
      ...providers,
    ],
  }).compile();
  await moduleRef.init();
  return { moduleRef, queue, tasks: moduleRef.get(MaintenanceTasksService) };
}

describe(MaintenanceTasksService.name, () => {
  it('finds every @MaintenanceTask method, its period read from the configuration, and schedules it', async () => {
    const { moduleRef, queue, tasks } = await tasksWith([Sweeps]);
    expect(tasks.get('retention')).toMatchObject({ everyMs: 86_400_000, source: 'Sweeps.retention' });
    expect(tasks.get('reconcile')).toMatchObject({ everyMs: 0, firstRunAfterOnePeriod: true });
    expect(tasks.get('notATask')).toBeUndefined();
    await tasks.get('retention')!.run('admin', {});
    expect(moduleRef.get(Sweeps).runs).toEqual(['admin']);
    expect(queue.upsertJobScheduler).toHaveBeenCalledWith('retention', { every: 86_400_000 }, { name: 'retention', data: { trigger: 'schedule' } });
    expect(queue.removeJobScheduler).toHaveBeenCalledWith('reconcile');
  });

  it('refuses to start with two tasks of one name', async () => {
    await expect(tasksWith([Sweeps, SweepsAgain])).rejects.toThrow('two maintenance tasks named retention: Sweeps.retention and SweepsAgain.retention');
  });
});
