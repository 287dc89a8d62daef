import { Module } from '@nestjs/common';
import { AutomationSettingRepository } from './automation-setting.repository.js';
import { AutomationSettingsService } from './automation-settings.service.js';

/** The automations' settings per CRM (table `automation_setting`); the routes and the work are in src/automations. */
@Module({
  providers: [AutomationSettingRepository, AutomationSettingsService],
  exports: [AutomationSettingsService],
})
export class AutomationSettingsModule {}
