import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { AutomationCrm } from './automation-settings.js';

export interface StoredAutomationSetting {
  crm: AutomationCrm;
  settings: unknown;
  updatedAt: Date;
  updatedBy: string | null;
}

/** Every statement on `automation_setting`. */
@Injectable()
export class AutomationSettingRepository {
  constructor(private readonly database: DatabaseService) {}

  async find(crm: AutomationCrm): Promise<StoredAutomationSetting | null> {
    const [row] = await this.database.query<StoredAutomationSetting[]>(
      `SELECT crm, settings, updated_at AS "updatedAt", updated_by AS "updatedBy" FROM automation_setting WHERE crm = $1`,
      [crm],
    );
    return row ?? null;
  }

  async save(crm: AutomationCrm, settings: object, actor: string | null): Promise<StoredAutomationSetting> {
    const [row] = await this.database.returning<StoredAutomationSetting>(
      `INSERT INTO automation_setting (crm, settings, updated_at, updated_by) VALUES ($1, $2::jsonb, now(), $3)
       ON CONFLICT (crm) DO UPDATE SET settings = EXCLUDED.settings, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by
       RETURNING crm, settings, updated_at AS "updatedAt", updated_by AS "updatedBy"`,
      [crm, JSON.stringify(settings), actor],
    );
    return row;
  }
}
