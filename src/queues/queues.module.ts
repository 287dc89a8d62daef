import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ActionQueues } from './action-queues.service.js';
import { MaintenanceWorker } from './maintenance.processor.js';
import { MaintenanceTasks } from './maintenance.service.js';
import { defaultJobOptions, QUEUES } from './queues.js';
import { queueWorker } from './queue-worker.js';
import { redisConnection } from './redis-connection.js';
import { RelaySignal } from './relay-signal.service.js';
import { SharedRedis } from './shared-redis.service.js';

const queueRegistrations = Object.values(QUEUES).map((name) => ({ name }));

/** The Redis connections (the queues', and SharedRedis for state shared by replicas) and every queue; feature modules only add processors. */
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        connection: redisConnection(config.redisUrl),
        prefix: config.queuePrefix,
        defaultJobOptions: defaultJobOptions(),
      }),
    }),
    BullModule.registerQueue(...queueRegistrations),
  ],
  providers: [MaintenanceTasks, queueWorker(MaintenanceWorker, QUEUES.maintenance, 2), ActionQueues, RelaySignal, SharedRedis],
  exports: [BullModule, MaintenanceTasks, ActionQueues, RelaySignal, SharedRedis],
})
export class QueuesModule {}
