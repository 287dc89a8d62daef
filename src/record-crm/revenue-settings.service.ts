import { Injectable } from '@nestjs/common';

/** The revenue part of the record CRM's automation settings (CONTRACT §13), with the same names. */
export interface RevenueSettings {
  deal_stage_on_approved: string | null;
  deal_stage_on_lost: string | null;
  quote_line_items: boolean;
  fallback_product_id: string | null;
}

export const DEFAULT_REVENUE_SETTINGS: RevenueSettings = {
  deal_stage_on_approved: 'Closed Won',
  deal_stage_on_lost: null,
  quote_line_items: false,
  fallback_product_id: null,
};

/**
 * Where routing and the revenue actions read the settings. Until the record CRM's automation settings exist
 * (AutomationSettingsService.recordCrm()), the defaults.
 */
@Injectable()
export class RevenueSettingsService {
  current(): Promise<RevenueSettings> {
    return Promise.resolve({ ...DEFAULT_REVENUE_SETTINGS });
  }
}
