import type { SimHandler, SimRequest, SimResponse, SimServer } from '../common/sim-server.js';
import type { ScopedCall } from './scopes.js';
import { zohoError, zohoTime, type ZohoModule } from './zoho-types.js';

/** A channel as the simulator keeps it. */
export interface SimChannel {
  channelId: string;
  events: string[];
  notifyUrl: string;
  token: string | null;
  expiresAt: number;
  returnAffectedFieldValues: boolean;
}

/** A notification the simulator sent, and how the notify URL answered (null: it could not be reached). */
export interface SentNotification {
  channelId: string;
  module: ZohoModule;
  operation: 'insert' | 'update';
  ids: string[];
  status: number | null;
  /** The notify URL's answer, as text ('' until it answers). */
  answer: string;
}

type Authed = (call: ScopedCall, handler: (req: SimRequest) => SimResponse | Promise<SimResponse>) => SimHandler;

/**
 * A channel's lifetime when none is asked or one beyond the longest: an hour (Zoho's v8 Enable Notifications and Update
 * Specific Information of a Notification pages: "a maximum of one week … If it is not specified or set for more than a
 * week, the default expiry time is for one hour"; Kaizen #170 says the same of v4 and later).
 */
const DEFAULT_LIFETIME_MS = 3600_000;
const WEEK_MS = 7 * 24 * 3600_000;

/**
 * Zoho's notifications (crm-oas v8.0/notifications.json, `/crm/v8/actions/watch`, scope ZohoCRM.notifications.ALL):
 * POST enables channels (201, `Success_Response` with `details.events[]` each carrying its `channel_expiry`), PUT
 * replaces a channel's details, PATCH updates only the fields given, GET lists them (`watch[]` and `info`; 204 when
 * none), DELETE `?channel_ids=` removes them. When a record of a watched module is created or edited, each live
 * channel watching that event is sent a POST to its `notify_url` with its `channel_id` and `token` (Zoho's
 * notifications overview: `server_time`, `query_params`, `module`, `resource_uri`, `ids`, `affected_fields`,
 * `operation`, `channel_id`, `token`).
 */
export class ZohoNotificationsSim {
  /** The longest lifetime Zoho keeps (a week); an expiry asked beyond it gets `fallbackLifetimeMs` instead. */
  maxLifetimeMs = WEEK_MS;
  /** The lifetime of a channel asked with no expiry or one beyond the longest (an hour); a test lowers it. */
  fallbackLifetimeMs = DEFAULT_LIFETIME_MS;
  /** Every notification sent, in order; `status` is null until (unless) the notify URL answers. */
  readonly sent: SentNotification[] = [];
  private readonly channels = new Map<string, SimChannel>();

  constructor(private readonly apiDomain: () => string) {}

  install(api: SimServer, authed: Authed): void {
    const call: ScopedCall = { call: 'notifications' };
    api.route(
      'POST',
      '/crm/v8/actions/watch',
      authed(call, (req) => this.write(req, 'enable')),
    );
    api.route(
      'PUT',
      '/crm/v8/actions/watch',
      authed(call, (req) => this.write(req, 'replace')),
    );
    api.route(
      'PATCH',
      '/crm/v8/actions/watch',
      authed(call, (req) => this.write(req, 'patch')),
    );
    api.route(
      'GET',
      '/crm/v8/actions/watch',
      authed(call, (req) => this.list(req)),
    );
    api.route(
      'DELETE',
      '/crm/v8/actions/watch',
      authed(call, (req) => this.remove(req)),
    );
  }

  /** The live channels (expired ones are gone, as Zoho no longer lists them). */
  get live(): SimChannel[] {
    this.sweep();
    return [...this.channels.values()].map((c) => ({ ...c, events: [...c.events] }));
  }

  /** A fault: Zoho drops the channel (all when none named) without telling anyone. */
  dropChannel(channelId?: string): void {
    if (channelId) this.channels.delete(channelId);
    else this.channels.clear();
  }

  /**
   * A record of `module` was created or edited, by anyone (a person, or crm-sync through the API: Zoho notifies its
   * own writes too): each live channel watching it is notified (in the background), naming the fields an edit changed.
   */
  recordChanged(module: ZohoModule, operation: 'create' | 'edit', id: string, fields: string[] = []): void {
    this.sweep();
    for (const channel of this.channels.values()) {
      const watched = channel.events.some((e) => e === `${module}.${operation}` || e === `${module}.all`);
      if (watched) void this.send(channel, module, operation === 'create' ? 'insert' : 'update', [id], operation === 'edit' ? fields : []);
    }
  }

  private async send(channel: SimChannel, module: ZohoModule, operation: 'insert' | 'update', ids: string[], fields: string[]): Promise<void> {
    const body = {
      server_time: Date.now(),
      query_params: {},
      module,
      resource_uri: `${this.apiDomain()}/crm/v8/${module}`,
      ids,
      // Zoho's notifications overview: the fields an update changed, per record id; empty for an insert.
      affected_fields: operation === 'update' ? ids.map((id) => ({ [id]: fields })) : [],
      operation,
      channel_id: Number(channel.channelId),
      token: channel.token,
    };
    // Listed in the order sent; Zoho promises no order of arrival, and the answers may come back in any.
    const record: SentNotification = { channelId: channel.channelId, module, operation, ids, status: null, answer: '' };
    this.sent.push(record);
    try {
      const response = await fetch(channel.notifyUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      record.answer = await response.text();
      record.status = response.status;
    } catch {
      record.status = null;
    }
  }

  private write(req: SimRequest, how: 'enable' | 'replace' | 'patch'): SimResponse {
    this.sweep();
    const items = Array.isArray((req.json as { watch?: unknown })?.watch) ? ((req.json as { watch: unknown[] }).watch as Array<Record<string, unknown>>) : null;
    if (!items || items.length === 0) return { status: 400, body: zohoError('MANDATORY_NOT_FOUND', 'required field not found', { api_name: 'watch' }) };
    const answers = items.map((item) => this.writeOne(item, how));
    const failed = answers.find((a) => a.status === 'error');
    // A wrapped error answers 202 (WrappedErrorResponse in notifications.json); success 201 for POST, 200 otherwise.
    return { status: failed ? 202 : how === 'enable' ? 201 : 200, body: { watch: answers } };
  }

  private writeOne(item: Record<string, unknown>, how: 'enable' | 'replace' | 'patch'): Record<string, unknown> {
    const channelId = item.channel_id === undefined || item.channel_id === null ? '' : String(item.channel_id);
    if (!/^\d+$/.test(channelId)) return zohoError('MANDATORY_NOT_FOUND', 'required field not found', { api_name: 'channel_id' });
    const existing = this.channels.get(channelId);
    if (how === 'patch' && !existing) return zohoError('NOT_SUBSCRIBED', 'not subscribed for actions-watch of the given module', { channel_id: channelId });
    const base: SimChannel | null = how === 'patch' ? existing! : null;
    const events = Array.isArray(item.events) ? item.events.filter((e): e is string => typeof e === 'string') : (base?.events ?? []);
    const notifyUrl = typeof item.notify_url === 'string' ? item.notify_url : base?.notifyUrl;
    if (events.length === 0) return zohoError('MANDATORY_NOT_FOUND', 'required field not found', { api_name: 'events' });
    if (!notifyUrl) return zohoError('MANDATORY_NOT_FOUND', 'required field not found', { api_name: 'notify_url' });
    // Zoho's Enable Notifications page: the token is at most 50 characters.
    if (typeof item.token === 'string' && item.token.length > 50) return zohoError('INVALID_DATA', 'invalid data', { api_name: 'token' });
    // PATCH keeps what it does not name; POST and PUT without an expiry get the fallback.
    let expiresAt = base?.expiresAt ?? Date.now() + this.fallbackLifetimeMs;
    if (typeof item.channel_expiry === 'string') {
      const asked = Date.parse(item.channel_expiry);
      if (Number.isNaN(asked) || asked <= Date.now()) return zohoError('INVALID_DATA', 'invalid data', { api_name: 'channel_expiry' });
      expiresAt = asked > Date.now() + this.maxLifetimeMs ? Date.now() + this.fallbackLifetimeMs : asked;
    }
    const channel: SimChannel = {
      channelId,
      events,
      notifyUrl,
      token: typeof item.token === 'string' ? item.token : (base?.token ?? null),
      expiresAt,
      returnAffectedFieldValues: item.return_affected_field_values === true,
    };
    this.channels.set(channelId, channel);
    const message = how === 'enable' ? 'Successfully subscribed for actions-watch of the given module' : 'Successfully updated the subscribe details';
    return {
      status: 'success',
      code: 'SUCCESS',
      message,
      details: {
        events: channel.events.map((e) => ({
          channel_expiry: zohoTime(channel.expiresAt),
          resource_uri: `${this.apiDomain()}/crm/v8/${e.split('.')[0]}`,
          resource_id: channelId,
          resource_name: e.split('.')[0],
          channel_id: channelId,
        })),
      },
    };
  }

  private list(req: SimRequest): SimResponse {
    this.sweep();
    const wanted = req.query.get('channel_id');
    const module = req.query.get('module');
    const channels = [...this.channels.values()].filter(
      (c) => (!wanted || c.channelId === wanted) && (!module || c.events.some((e) => e.startsWith(`${module}.`))),
    );
    if (channels.length === 0) return { status: 204 };
    const watch = channels.map((c) => ({
      channel_id: Number(c.channelId),
      events: c.events,
      notify_url: c.notifyUrl,
      token: c.token,
      channel_expiry: zohoTime(c.expiresAt),
      return_affected_field_values: c.returnAffectedFieldValues,
      resource_name: c.events[0]?.split('.')[0],
    }));
    return { status: 200, body: { watch, info: { per_page: 200, page: 1, count: watch.length, more_records: false } } };
  }

  private remove(req: SimRequest): SimResponse {
    const ids = (req.query.get('channel_ids') ?? '').split(',').filter(Boolean);
    if (ids.length === 0) return { status: 400, body: zohoError('REQUIRED_PARAM_MISSING', 'required param missing', { param_name: 'channel_ids' }) };
    const answers = ids.map((id) =>
      this.channels.delete(id)
        ? { status: 'success', code: 'SUCCESS', message: 'Successfully removed the subscribe details', details: { channel_id: id } }
        : zohoError('NOT_SUBSCRIBED', 'not subscribed for actions-watch of the given module', { channel_id: id }),
    );
    return { status: answers.some((a) => a.status === 'error') ? 202 : 200, body: { watch: answers } };
  }

  /** Expired channels are gone: Zoho stops notifying and no longer lists them. */
  private sweep(): void {
    const now = Date.now();
    for (const [id, channel] of this.channels) if (channel.expiresAt <= now) this.channels.delete(id);
  }
}
