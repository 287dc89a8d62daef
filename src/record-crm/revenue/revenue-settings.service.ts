import { Injectable } from '@nestjs/common';
import { AutomationSettingsService } from '../../crm-settings/automation-settings.service.js';
import type { RecordCrmAutomation } from '../../crm-settings/automation-settings.js';

/** The revenue part of the record CRM's automation settings (docs/zoho-crm.md, Revenue). */
export type RevenueSettings = Pick<
  RecordCrmAutomation,
  'deal_stage_on_approved' | 'deal_stage_on_lost' | 'quote_line_items' | 'fallback_product_id' | 'trigger'
>;

/**
 * Where routing and the revenue actions read the settings: the record CRM's automation settings, as saved with
 * `PUT /api/automations/record-crm` (cached up to 5 s per replica by AutomationSettingsService).
 */
@Injectable()
export class RevenueSettingsService {
  constructor(private readonly automations: AutomationSettingsService) {}

  async current(): Promise<RevenueSettings> {
    const { deal_stage_on_approved, deal_stage_on_lost, quote_line_items, fallback_product_id, trigger } = await this.automations.recordCrm();
    return { deal_stage_on_approved, deal_stage_on_lost, quote_line_items, fallback_product_id, trigger };
  }
}
