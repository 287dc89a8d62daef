import type { RecordModule } from '../service-api/service-api.types.js';

/** The record CRM automation's Zoho notification channel (one row at most). */
export interface NotificationChannelRow {
  channelId: string;
  module: RecordModule;
  notifyUrl: string;
  /** The channel's token, sealed with the connections key (notificationTokenBinding). */
  sealedToken: string;
  expiresAt: Date;
  madeAt: Date;
  /** When the channel was last made or renewed: with `expiresAt`, the lifetime Zoho grants. */
  renewedAt: Date;
  lastNotifiedAt: Date | null;
  lastError: string | null;
}
