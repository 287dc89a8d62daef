import { Injectable, Logger } from '@nestjs/common';
import { MaintenanceTask } from '../queues/maintenance-task.decorator.js';
import { ConnectionChecksService } from './connection-checks.service.js';
import { ConnectionsService } from '../connections/connections.service.js';

/**
 * Checks every configured connection on a schedule (one replica per period), the Test button's check for each, so
 * the console shows a revoked token or a moved address without waiting for a failed action or a click, and a
 * connection that works again stops showing `degraded`.
 */
@Injectable()
export class ConnectionCheckSchedule {
  private readonly logger = new Logger('ConnectionChecksService');

  constructor(
    private readonly connections: ConnectionsService,
    private readonly checks: ConnectionChecksService,
  ) {}

  // Not at once: a deployment starting checks its connections as it uses them.
  @MaintenanceTask('check_connections', { every: (config) => config.connections.checkEveryMs, firstRunAfterOnePeriod: true })
  async run(): Promise<void> {
    for (const state of await this.connections.states()) {
      // Unset, or unreadable (a wrong key): the console already says so; a check would only repeat it.
      if (!state.settings || state.problem) continue;
      const outcome = await this.checks.checkAndRecord(state.name, true);
      if (!outcome.ok) this.logger.warn(`the ${state.name} connection failed its check: ${outcome.detail}`);
    }
  }
}
