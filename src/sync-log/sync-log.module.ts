import { Module } from '@nestjs/common';
import { CallTraceRepository } from './call-trace.repository.js';
import { SyncLogRepository } from './sync-log.repository.js';

/** The sync log table and its call traces: every statement on `sync_log` and `sync_log_call`. */
@Module({ providers: [SyncLogRepository, CallTraceRepository], exports: [SyncLogRepository, CallTraceRepository] })
export class SyncLogModule {}
