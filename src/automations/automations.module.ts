import { Module } from '@nestjs/common';
import { AutomationSettingsModule } from '../automation-settings/automation-settings.module.js';
import { SyncLogModule } from '../sync-log/sync-log.module.js';
import { AutomationPollRepository } from './automation-poll.repository.js';
import { AutomationsController } from './automations.controller.js';

/** Projects from the CRMs (docs/automations.md): the settings' routes, the readers of each CRM's changes, `create_project`. */
@Module({
  imports: [AutomationSettingsModule, SyncLogModule],
  controllers: [AutomationsController],
  providers: [AutomationPollRepository],
})
export class AutomationsModule {}
