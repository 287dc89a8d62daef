import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ConnectionsService } from '../connections/connections.service.js';
import { AutomationSettingsService } from '../crm-settings/automation-settings.service.js';
import { withAdvisoryLock } from '../database/advisory-lock.js';
import { isJsonObject, optionalIdString, parseExactJson } from '../http/exact-json.js';
import { MaintenanceTask } from '../queues/maintenance-task.decorator.js';
import { MaintenanceTasksService } from '../queues/maintenance.service.js';
import { ZohoNotificationsClient } from '../record-crm/zoho/zoho-notifications.client.js';
import { ZohoOwnWrites } from '../record-crm/zoho/zoho-own-writes.js';
import { RECORD_MODULES, type RecordModule } from '../service-api/service-api.types.js';
import { AutomationPollerService } from './automation-poller.service.js';
import { NotificationChannelRepository } from './notification-channel.repository.js';
import { NotificationChannelMemory, tokenDigest, type KnownChannel } from './notification-channel-memory.js';
import { notificationsFlowing } from './notifications-flowing.js';
import type { NotificationChannelRow } from './notification-channel.row.js';

/** Where Zoho sends the channel's notifications, under PUBLIC_URL. */
export const NOTIFY_PATH = '/webhooks/record-crm/notifications';
const NOTIFIED_TASK = 'automation-notified-records';
/** Ids read per notification at most (Zoho's Get Records by ids takes 100 a call). */
const MAX_IDS = 500;
/** How the record CRM automation learns of changes now, as the Automations screen shows it. */
export type NotificationsView =
  | { state: 'notified'; channel_expiry: string; last_notified_at: string | null }
  | { state: 'polling'; reason: string; channel_expiry: string | null; last_notified_at: string | null };

export type NotificationAnswer = { status: number; body: Record<string, string> };

/**
 * How long a replica trusts its memory of the channel: a channel made or removed on another replica is known here
 * within that (its notifications are refused until then), and Postgres is read for the route at most once in it.
 */
const CHANNEL_MEMORY_MS = 10_000;

/** The associated data the channel's token is sealed with: bound to its channel. */
const tokenBinding = (channelId: string) => `crm-sync/zoho-notification-token\n${channelId}`;

/**
 * Deals within seconds (docs/automations.md "Notifications"): a Zoho notification channel on the automation's module
 * (create and edit), kept by a maintenance task on one replica at a time, and the notifications it brings, each
 * checked against the channel's token and turned into a read of the records it names.
 */
@Injectable()
export class RecordNotificationsService {
  private readonly logger = new Logger(RecordNotificationsService.name);

  /** The channel as this replica knows it, checked by every notification before anything is read. */
  private readonly memory = new NotificationChannelMemory(() => this.storedChannel(), CHANNEL_MEMORY_MS);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly settings: AutomationSettingsService,
    private readonly channels: NotificationChannelRepository,
    private readonly zoho: ZohoNotificationsClient,
    private readonly connections: ConnectionsService,
    private readonly tasks: MaintenanceTasksService,
    private readonly poller: AutomationPollerService,
    private readonly ownWrites: ZohoOwnWrites,
  ) {}

  /**
   * Keeps the channel: made when the automation is on and PUBLIC_URL set, renewed once less than half its lifetime is
   * left, made anew when Zoho no longer lists it (dropped, expired) or it is for another module or address, removed
   * when the automation is off or PUBLIC_URL unset.
   */
  @MaintenanceTask('zoho-notification-channel', { every: (config) => config.zohoNotifications.checkSeconds * 1000, atStartup: true })
  async keepChannel(): Promise<void> {
    if (this.config.zohoNotifications.checkSeconds <= 0) return;
    await withAdvisoryLock(this.config.databaseUrl, 'zoho-notification-channel', () => this.keep(), { ifTaken: () => undefined });
  }

  private async keep(): Promise<void> {
    const [settings, channel, connected] = await Promise.all([this.settings.recordCrm(), this.channels.find(), this.connections.get('record_crm')]);
    const notifyUrl = this.config.publicUrl ? `${this.config.publicUrl}${NOTIFY_PATH}` : null;
    if (!settings.create_projects || !notifyUrl || !connected) {
      if (channel) await this.remove(channel);
      return;
    }
    try {
      if (!channel || channel.module !== settings.module || channel.notifyUrl !== notifyUrl) {
        if (channel) await this.remove(channel);
        await this.make(settings.module, notifyUrl);
        return;
      }
      const listed = await this.zoho.details(channel.channelId);
      if (!listed || (listed.expiry && listed.expiry.getTime() <= Date.now())) {
        this.logger.warn(`Zoho no longer lists the notification channel of ${channel.module}: making it anew`);
        await this.make(settings.module, notifyUrl);
        return;
      }
      const expiresAt = listed.expiry ?? new Date(channel.expiresAt);
      const lifetime = expiresAt.getTime() - new Date(channel.renewedAt).getTime();
      if (expiresAt.getTime() - Date.now() < lifetime / 2) await this.renew(channel);
    } catch (err) {
      const message = (err as Error).message;
      this.logger.warn(`the Zoho notification channel could not be kept: ${message}`);
      await this.channels.failed(message);
    }
  }

  private async make(module: RecordModule, notifyUrl: string): Promise<void> {
    const channelId = String(1_000_000_000_000 + randomInt(0, 2 ** 47));
    // 43 characters: Zoho takes a token of at most 50.
    const token = randomBytes(32).toString('base64url');
    const expiry = new Date(Date.now() + this.config.zohoNotifications.channelMinutes * 60_000);
    const kept = await this.zoho.enable({ channelId, module, notifyUrl, token, expiry });
    await this.channels.replace({ channelId, module, notifyUrl, sealedToken: this.connections.seal(token, tokenBinding(channelId)), expiresAt: kept });
    this.memory.set({ channelId, module, tokenDigest: tokenDigest(token) });
    this.logger.log(`Zoho notification channel made for ${module} (create and edit), until ${kept.toISOString()}`);
  }

  private async renew(channel: NotificationChannelRow): Promise<void> {
    const token = this.connections.open<string>(channel.sealedToken, tokenBinding(channel.channelId));
    const expiry = new Date(Date.now() + this.config.zohoNotifications.channelMinutes * 60_000);
    const kept = await this.zoho.renew({ channelId: channel.channelId, module: channel.module, notifyUrl: channel.notifyUrl, token, expiry });
    await this.channels.renewed(channel.channelId, kept);
    this.logger.log(`Zoho notification channel renewed until ${kept.toISOString()}`);
  }

  private async remove(channel: NotificationChannelRow): Promise<void> {
    // A channel Zoho cannot be told about now still expires on its own; its notifications are refused once the row is gone.
    await this.zoho
      .disable(channel.channelId)
      .catch((err: Error) => this.logger.warn(`the old Zoho notification channel stays until it expires: ${err.message}`));
    await this.channels.remove();
    this.memory.set(null);
  }

  /**
   * A notification (its raw body): taken only with the channel's id and token (compared in constant time; neither is
   * ever logged), then its ids are queued for a read, one job per notification (Zoho's retries collapse into it).
   * Nothing but the module and the ids is read from it: the records themselves are read from Zoho.
   */
  async receive(raw: Buffer): Promise<NotificationAnswer> {
    let body: unknown;
    try {
      body = parseExactJson(raw.toString('utf8'));
    } catch {
      return { status: 400, body: { error: 'the body is not JSON' } };
    }
    if (!isJsonObject(body)) return { status: 400, body: { error: 'the body is not a JSON object' } };
    let channelId: string | null = null;
    try {
      channelId = optionalIdString(body.channel_id);
    } catch {
      channelId = null;
    }
    // The front door: nothing is read from Postgres nor unsealed for a notification without an id and a token, and
    // the channel checked against is this replica's memory of it, filled at most once a CHANNEL_MEMORY_MS.
    const channel = channelId === null || typeof body.token !== 'string' ? null : await this.memory.current();
    if (!NotificationChannelMemory.admits(channel, channelId, body.token)) {
      return { status: 401, body: { error: 'unknown channel or wrong token' } };
    }
    const module = typeof body.module === 'string' ? body.module : channel.module;
    const ids = (Array.isArray(body.ids) ? body.ids : []).flatMap((id) => {
      try {
        const text = optionalIdString(id);
        return text && /^\d{1,30}$/.test(text) ? [text] : [];
      } catch {
        return [];
      }
    });
    await this.channels.notified(channel.channelId);
    if (module !== channel.module || !RECORD_MODULES.includes(module as RecordModule) || ids.length === 0) return { status: 200, body: { status: 'ignored' } };
    const unique = await this.othersWrites(module as RecordModule, body, [...new Set(ids)].slice(0, MAX_IDS).sort());
    if (unique.length === 0) return { status: 200, body: { status: 'own writes' } };
    const key = createHash('sha256')
      .update(`${String(body.server_time)}\n${String(body.operation)}\n${unique.join(',')}`)
      .digest('hex')
      .slice(0, 32);
    await this.tasks.runNow(NOTIFIED_TASK, { module, ids: unique }, `notified-${key}`);
    return { status: 200, body: { status: 'accepted' } };
  }

  /**
   * The notified ids less those whose update was crm-sync's own write (ZohoOwnWrites, by the fields Zoho's callback
   * names as changed: `affected_fields`): those need no read. Creates and updates naming no fields are all read.
   */
  private async othersWrites(module: RecordModule, body: Record<string, unknown>, ids: string[]): Promise<string[]> {
    if (body.operation !== 'update' || !Array.isArray(body.affected_fields)) return ids;
    const changed = new Map<string, string[]>();
    for (const entry of body.affected_fields.filter(isJsonObject)) {
      for (const [id, fields] of Object.entries(entry)) {
        if (Array.isArray(fields))
          changed.set(
            id,
            fields.filter((f): f is string => typeof f === 'string'),
          );
      }
    }
    const others: string[] = [];
    for (const id of ids) if (!(await this.ownWrites.ownUpdate(module, id, changed.get(id) ?? []))) others.push(id);
    return others;
  }

  /** Reads the notified records and qualifies them as the poll does. */
  @MaintenanceTask(NOTIFIED_TASK, { every: () => 0 })
  async readNotified(_trigger: unknown, data: Record<string, unknown>): Promise<void> {
    const module = data.module as RecordModule;
    const ids = Array.isArray(data.ids) ? data.ids.filter((id): id is string => typeof id === 'string') : [];
    const created = await this.poller.qualifyRecords(module, ids);
    if (created > 0) this.logger.log(`record CRM: ${created} project(s) to create from a notification of ${ids.length} record(s)`);
  }

  /** The state for the Automations screen. */
  async view(): Promise<NotificationsView> {
    const [settings, channel] = await Promise.all([this.settings.recordCrm(), this.channels.find()]);
    const expiry = channel ? new Date(channel.expiresAt).toISOString() : null;
    const lastNotified = channel?.lastNotifiedAt ? new Date(channel.lastNotifiedAt).toISOString() : null;
    if (notificationsFlowing(channel, settings)) return { state: 'notified', channel_expiry: expiry!, last_notified_at: lastNotified };
    const reason = !this.config.publicUrl
      ? 'notifications need PUBLIC_URL (the address Zoho sends them to)'
      : !settings.create_projects
        ? 'project creation is off'
        : this.config.zohoNotifications.checkSeconds <= 0
          ? 'notifications are off (ZOHO_NOTIFICATION_CHECK_SECONDS=0)'
          : channel?.lastError
            ? `the notification channel failed: ${channel.lastError}`
            : !channel || channel.module !== settings.module
              ? 'no notification channel yet'
              : 'the notification channel expired or went quiet';
    return { state: 'polling', reason, channel_expiry: expiry, last_notified_at: lastNotified };
  }

  /** The channel as stored, its token unsealed into a digest; null without one, or when its token does not open. */
  private async storedChannel(): Promise<KnownChannel | null> {
    const channel = await this.channels.find();
    if (!channel) return null;
    try {
      const token = this.connections.open<string>(channel.sealedToken, tokenBinding(channel.channelId));
      return { channelId: channel.channelId, module: channel.module, tokenDigest: tokenDigest(token) };
    } catch {
      return null;
    }
  }
}
