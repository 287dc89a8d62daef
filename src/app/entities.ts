import { AppointmentDrawingPush } from '../appointment-crm/drawing-push.entity.js';
import { AutomationSetting } from '../crm-settings/automation-setting.entity.js';
import { AutomationPoll } from '../automations/automation-poll.entity.js';
import { Mapping } from '../mappings/mapping.entity.js';
import { DealRevenueRow } from '../record-crm/revenue/deal-revenue.entity.js';
import { ZohoProductRow } from '../record-crm/revenue/zoho-product.entity.js';
import { ZohoQuoteRow } from '../record-crm/revenue/zoho-quote.entity.js';
import { KnownProject } from '../projects/project.entity.js';
import { MappingSuggestion } from '../suggestions/suggestion.entity.js';
import { SyncLogEntry } from '../sync-log/sync-log.entity.js';
import { InboxDelivery } from '../webhooks/inbox.entity.js';

/** Every entity of the daemon, for DatabaseModule and the TypeORM CLI; modules add theirs here. */
export const ENTITIES = [
  SyncLogEntry,
  InboxDelivery,
  Mapping,
  AppointmentDrawingPush,
  ZohoProductRow,
  DealRevenueRow,
  ZohoQuoteRow,
  AutomationSetting,
  AutomationPoll,
  KnownProject,
  MappingSuggestion,
];
