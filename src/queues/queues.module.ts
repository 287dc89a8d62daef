import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ActionQueuesService } from './action-queues.service.js';
import { MaintenanceWorker } from './maintenance.worker.js';
import { MaintenanceTasksService } from './maintenance.service.js';
import { defaultJobOptions, QUEUES } from './queues.js';
import { queueWorker } from './queue-worker.js';
import { redisConnection } from './redis-connection.js';
import { RelaySignalService } from './relay-signal.service.js';
import { SharedRedisService } from './shared-redis.service.js';

const queueRegistrations = Object.values(QUEUES).map((name) => ({ name }));

/** The Redis connections (the queues', and SharedRedisService for state shared by replicas) and every queue; feature modules only add processors. */
@Module({
  imports: [
    DiscoveryModule,
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
  providers: [MaintenanceTasksService, queueWorker(MaintenanceWorker, QUEUES.maintenance, 2), ActionQueuesService, RelaySignalService, SharedRedisService],
  exports: [BullModule, MaintenanceTasksService, ActionQueuesService, RelaySignalService, SharedRedisService],
})
export class QueuesModule {}
