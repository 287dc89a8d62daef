import { Injectable } from '@nestjs/common';
import { isJsonObject, optionalIdString } from '../../http/exact-json.js';
import { OutboundError } from '../../http/outbound-error.js';
import type { RecordModule } from '../../service-api/service-api.types.js';
import { ZohoClient } from './zoho.client.js';

/** A notification channel as crm-sync asks Zoho for it. */
export interface WatchChannel {
  /** Zoho's `channel_id` (a long): crm-sync picks it, below 2^53, and keeps it as a decimal string. */
  channelId: string;
  module: RecordModule;
  notifyUrl: string;
  /** Sent back in every notification's body (at most 50 characters, Zoho's notifications page). */
  token: string;
  /** When the channel should stop; Zoho may keep an earlier one (read back from its answer). */
  expiry: Date;
}

/** A channel as Zoho lists it (`GET /actions/watch`). */
export interface WatchedChannel {
  channelId: string;
  events: string[];
  notifyUrl: string | null;
  expiry: Date | null;
}

/**
 * Zoho's notification API (crm-oas v8.0/notifications.json, `/crm/v8/actions/watch`; scope ZohoCRM.notifications.ALL):
 * POST enables a channel (`watch[]` of `channel_id`, `events` like `Deals.create`, `notify_url`, `token`,
 * `channel_expiry`, `return_affected_field_values`, `notify_on_related_action`; 201 with `details.events[]` carrying
 * each event's `channel_expiry`), PATCH updates only the fields given (the renewal: a new `channel_expiry`, sent with
 * the `channel_id`, `notify_url` and `events` Zoho requires of every PATCH: crm-oas v8 updateNotificationInfo,
 * `required: [channel_id, notify_url, events]`, and Zoho's "Update Specific Information of a Notification" page), GET
 * lists the channels (204 when there is none, or `NOT_SUBSCRIBED`), DELETE `?channel_ids=` removes one. A channel
 * lives at most a week; one asked longer (or with no expiry) gets an hour (Zoho's v8 notification pages, Kaizen #170).
 */
@Injectable()
export class ZohoNotificationsClient {
  constructor(private readonly zoho: ZohoClient) {}

  /** Enables the channel; returns the expiry Zoho kept (the asked one when its answer names none). */
  async enable(channel: WatchChannel): Promise<Date> {
    const { data } = await this.zoho.request<unknown>({
      endpoint: 'POST /actions/watch',
      method: 'POST',
      path: '/actions/watch',
      body: { watch: [this.body(channel)] },
    });
    return keptExpiry('POST /actions/watch', data) ?? channel.expiry;
  }

  /**
   * Moves the channel's expiry (PATCH: what it does not name stays; `channel_id`, `notify_url` and `events` are
   * required all the same); returns the expiry Zoho kept.
   */
  async renew(channel: WatchChannel): Promise<Date> {
    const { data } = await this.zoho.request<unknown>({
      endpoint: 'PATCH /actions/watch',
      method: 'PATCH',
      path: '/actions/watch',
      body: {
        watch: [
          {
            channel_id: Number(channel.channelId),
            notify_url: channel.notifyUrl,
            events: events(channel.module),
            channel_expiry: zohoExpiry(channel.expiry),
            token: channel.token,
          },
        ],
      },
    });
    return keptExpiry('PATCH /actions/watch', data) ?? channel.expiry;
  }

  /** The channel as Zoho lists it now; null when Zoho no longer has it (it expired or was dropped). */
  async details(channelId: string): Promise<WatchedChannel | null> {
    const { status, data } = await this.zoho.request<unknown>({
      endpoint: 'GET /actions/watch',
      method: 'GET',
      path: '/actions/watch',
      params: { channel_id: channelId },
      acceptStatus: [400],
    });
    // 400 NOT_SUBSCRIBED (InvalidParamError in notifications.json) or 204: no such channel.
    if (status === 204 || status === 400 || !isJsonObject(data) || !Array.isArray(data.watch)) return null;
    for (const item of data.watch.filter(isJsonObject)) {
      if (optionalIdString(item.channel_id) !== channelId) continue;
      const expiry = typeof item.channel_expiry === 'string' ? new Date(item.channel_expiry) : null;
      return {
        channelId,
        events: Array.isArray(item.events) ? item.events.filter((e): e is string => typeof e === 'string') : [],
        notifyUrl: typeof item.notify_url === 'string' ? item.notify_url : null,
        expiry: expiry && !Number.isNaN(expiry.getTime()) ? expiry : null,
      };
    }
    return null;
  }

  /** Removes the channel; one Zoho no longer has is gone already. */
  async disable(channelId: string): Promise<void> {
    try {
      await this.zoho.request<unknown>({ endpoint: 'DELETE /actions/watch', method: 'DELETE', path: '/actions/watch', params: { channel_ids: channelId } });
    } catch (err) {
      if (err instanceof OutboundError && err.status === 400) return;
      throw err;
    }
  }

  private body(channel: WatchChannel): Record<string, unknown> {
    return {
      channel_id: Number(channel.channelId),
      events: events(channel.module),
      notify_url: channel.notifyUrl,
      token: channel.token,
      channel_expiry: zohoExpiry(channel.expiry),
      // Only the ids are read from a notification: the records are read anew through the API.
      return_affected_field_values: false,
      notify_on_related_action: false,
    };
  }
}

/** Create and edit of the module's records (`<Module>.<operation>`, the `events` of notifications.json). */
function events(module: RecordModule): string[] {
  return [`${module}.create`, `${module}.edit`];
}

/** ISO 8601 with the offset and no milliseconds, as Zoho writes date-times. */
function zohoExpiry(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** The earliest `channel_expiry` of the answer's `details.events[]` (Success_Response in notifications.json). */
function keptExpiry(endpoint: string, data: unknown): Date | null {
  const item = isJsonObject(data) && Array.isArray(data.watch) ? data.watch.find(isJsonObject) : undefined;
  if (!item) return null;
  if (item.status !== 'success') {
    throw new OutboundError('zoho', endpoint, 'rejected', 400, `${String(item.code)}: ${String(item.message)}`.slice(0, 400));
  }
  const details = isJsonObject(item.details) ? item.details : {};
  const times = (Array.isArray(details.events) ? details.events.filter(isJsonObject) : [])
    .map((e) => (typeof e.channel_expiry === 'string' ? Date.parse(e.channel_expiry) : NaN))
    .filter((t) => !Number.isNaN(t));
  return times.length > 0 ? new Date(Math.min(...times)) : null;
}
