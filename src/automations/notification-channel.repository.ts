import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { NotificationChannelRow } from './notification-channel.row.js';

const COLUMNS = `channel_id AS "channelId", module, notify_url AS "notifyUrl", sealed_token AS "sealedToken", expires_at AS "expiresAt",
  made_at AS "madeAt", renewed_at AS "renewedAt", last_notified_at AS "lastNotifiedAt", last_error AS "lastError"`;

/** Every statement on `record_notification_channel`. */
@Injectable()
export class NotificationChannelRepository {
  constructor(private readonly database: DatabaseService) {}

  async find(): Promise<NotificationChannelRow | null> {
    const [row] = await this.database.query<NotificationChannelRow[]>(`SELECT ${COLUMNS} FROM record_notification_channel`);
    return row ?? null;
  }

  /** The channel made anew (a new id and token: notifications of the one before are refused from now on). */
  async replace(row: Omit<NotificationChannelRow, 'madeAt' | 'renewedAt' | 'lastNotifiedAt' | 'lastError'>): Promise<void> {
    await this.database.query(
      `INSERT INTO record_notification_channel (singleton, channel_id, module, notify_url, sealed_token, expires_at)
       VALUES (true, $1, $2, $3, $4, $5)
       ON CONFLICT (singleton) DO UPDATE SET channel_id = EXCLUDED.channel_id, module = EXCLUDED.module, notify_url = EXCLUDED.notify_url,
         sealed_token = EXCLUDED.sealed_token, expires_at = EXCLUDED.expires_at, made_at = now(), renewed_at = now(), last_notified_at = NULL,
         last_error = NULL, updated_at = now()`,
      [row.channelId, row.module, row.notifyUrl, row.sealedToken, row.expiresAt],
    );
  }

  async renewed(channelId: string, expiresAt: Date): Promise<void> {
    await this.database.query(
      `UPDATE record_notification_channel SET expires_at = $2, renewed_at = now(), last_error = NULL, updated_at = now() WHERE channel_id = $1`,
      [channelId, expiresAt],
    );
  }

  async failed(error: string): Promise<void> {
    await this.database.query(`UPDATE record_notification_channel SET last_error = $1, updated_at = now()`, [error.slice(0, 1000)]);
  }

  async notified(channelId: string): Promise<void> {
    await this.database.query(`UPDATE record_notification_channel SET last_notified_at = now() WHERE channel_id = $1`, [channelId]);
  }

  async remove(): Promise<void> {
    await this.database.query(`DELETE FROM record_notification_channel`);
  }
}
