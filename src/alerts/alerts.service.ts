import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DatabaseService } from '../database/database.service.js';
import type { AlertEvent, AlertKind, AlertSink } from './alert-sink.js';
import { AlertRepository, MAX_ALERT_ENTRIES, type AlertRow } from './alert.repository.js';

/** What the alert URL is sent: Slack-compatible (`text`), plus the facts for other receivers. */
export interface AlertMessage {
  text: string;
  kind: AlertKind;
  count: number;
  entries: string[];
  dashboard_url: string | null;
}

/** What happened to one message. */
export interface AlertOutcome {
  status: 'sent' | 'failed' | 'suppressed';
  error: string | null;
  http_status: number | null;
}

/** Events of one kind noticed in this process and not yet counted into Postgres. */
interface Buffered {
  count: number;
  entries: string[];
  detail: string | null;
}

/** While Postgres cannot record an alert, its events stay here and are tried again this often. */
const RETRY_MS = 5_000;

/**
 * Alert messages to `ALERT_WEBHOOK_URL`. Events are counted per kind into a pending row of the `alert` table at once
 * (one write per kind in flight; what arrives meanwhile goes in the next); the first event after a quiet interval
 * claims that row and sends it, later ones wait for the interval to pass (a timer, and a periodic look for rows a
 * stopped replica left) and go out together as the next message, with their count and ids. The throttle lives in
 * Postgres, so it holds across replicas. While Postgres is down (webhooks refused with 503) the events are sent from
 * memory, throttled per process, and not recorded. Nothing here ever throws into its callers or makes them wait.
 */
@Injectable()
export class AlertsService implements AlertSink, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(AlertsService.name);
  private readonly buffered = new Map<AlertKind, Buffered>();
  private readonly flushing = new Map<AlertKind, Promise<void>>();
  /** Messages claimed and being sent: apart from the flushes, so events noticed meanwhile are counted at once. */
  private readonly sending = new Set<Promise<void>>();
  private readonly timers = new Map<AlertKind, { timer: NodeJS.Timeout; at: number }>();
  /** Events Postgres could not record and this process may not send yet (its own interval); tried again by a timer. */
  private readonly held = new Map<AlertKind, Buffered>();
  /** When this process last sent a kind without Postgres (its own throttle while Postgres is down). */
  private readonly sentFromMemory = new Map<AlertKind, number>();
  private sweep?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly alerts: AlertRepository,
    private readonly database: DatabaseService,
  ) {}

  onApplicationBootstrap(): void {
    // How often each replica looks for pending alerts another replica left (it may have stopped before its timer).
    const everyMs = Math.max(this.config.alerts.pendingSweepMs, this.config.alerts.minIntervalSeconds * 1000);
    this.sweep = setInterval(() => void this.flushPending(), everyMs);
    this.sweep.unref();
  }

  /**
   * Lets the messages being sent record their outcome while Postgres is still open: one left `sending` would be taken
   * for abandoned after 60 s and its events sent a second time.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.flushing.values(), ...this.sending]);
    await Promise.allSettled([...this.sending]);
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearInterval(this.sweep);
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  notify(kind: Exclude<AlertKind, 'test'>, event: AlertEvent = {}): void {
    try {
      const buffer = this.buffered.get(kind) ?? { count: 0, entries: [], detail: null };
      buffer.count++;
      if (event.entryId !== undefined && buffer.entries.length < MAX_ALERT_ENTRIES) buffer.entries.push(String(event.entryId));
      if (event.detail) buffer.detail = event.detail.slice(0, 500);
      this.buffered.set(kind, buffer);
      // Counted into the pending row at once (so any replica's next message carries them), one write at a time.
      this.flushSoon(kind);
    } catch (err) {
      this.logger.warn(`alert ${kind} not recorded: ${(err as Error).message}`);
    }
  }

  /** The test button: one message now, whatever the throttle; recorded like the others. */
  async sendTest(): Promise<AlertOutcome & { id: string | null; text: string }> {
    const text = this.textOf('test', 1, null);
    let row: AlertRow | null = null;
    try {
      row = await this.alerts.insertSending('test', null);
    } catch (err) {
      this.logger.warn(`test alert not recorded: ${(err as Error).message}`);
    }
    const outcome = await this.deliver({ text, kind: 'test', count: 1, entries: [], dashboard_url: this.dashboardUrl() });
    if (row) await this.alerts.finish(row.id, outcome.status, text, outcome.error, outcome.http_status).catch(() => undefined);
    return { id: row?.id ?? null, text, ...outcome };
  }

  /** One flush per kind at a time; events arriving meanwhile go into the next. */
  private flushSoon(kind: AlertKind): void {
    if (this.flushing.has(kind) || this.stopped) return;
    const run = this.flush(kind)
      .catch((err: Error) => this.logger.warn(`alert ${kind}: ${err.message}`))
      .finally(() => {
        this.flushing.delete(kind);
        if (this.buffered.has(kind)) this.flushSoon(kind);
      });
    this.flushing.set(kind, run);
  }

  private async flush(kind: AlertKind): Promise<void> {
    const buffer = this.buffered.get(kind);
    this.buffered.delete(kind);
    const events = buffer ?? { count: 0, entries: [], detail: null };
    let claim;
    try {
      claim = await this.alerts.recordAndClaim(kind, events.count, events.entries, events.detail, this.config.alerts.minIntervalSeconds);
    } catch (err) {
      if (events.count > 0) await this.sendFromMemory(kind, events, err as Error);
      return;
    }
    if (claim.claimed) {
      this.sendAside(kind, claim.claimed);
      // Whatever came in while it was claimed waits for the next interval: look again then.
      this.retryIn(kind, this.config.alerts.minIntervalSeconds * 1000);
    } else if (claim.waitMs !== null) {
      this.retryIn(kind, claim.waitMs);
    }
  }

  /** Postgres could not record the events: send them from memory (throttled per process), or keep them for later. */
  private async sendFromMemory(kind: AlertKind, events: Buffered, cause: Error): Promise<void> {
    const last = this.sentFromMemory.get(kind) ?? 0;
    if (Date.now() - last < this.config.alerts.minIntervalSeconds * 1000) {
      this.held.set(kind, merge(this.held.get(kind), events));
      this.retryIn(kind, RETRY_MS);
      return;
    }
    const held = this.held.get(kind);
    this.held.delete(kind);
    events = merge(held, events);
    this.sentFromMemory.set(kind, Date.now());
    const text = this.textOf(kind, events.count, events.detail);
    const outcome = await this.deliver({ text, kind, count: events.count, entries: events.entries, dashboard_url: this.dashboardUrl() });
    this.logger.warn(`alert ${kind} (${events.count}) ${outcome.status} without being recorded (database: ${cause.message})`);
  }

  /** Flushes the kind again in `ms` (with what Postgres could not record meanwhile), unless a timer fires sooner. */
  private retryIn(kind: AlertKind, ms: number): void {
    if (this.stopped) return;
    const at = Date.now() + Math.max(ms, 0) + 20;
    const existing = this.timers.get(kind);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.timers.delete(kind);
      const held = this.held.get(kind);
      this.held.delete(kind);
      if (held) this.buffered.set(kind, merge(held, this.buffered.get(kind)));
      this.flushSoon(kind);
    }, at - Date.now());
    timer.unref();
    this.timers.set(kind, { timer, at });
  }

  private async flushPending(): Promise<void> {
    if (!this.database.isReady || this.stopped) return;
    try {
      for (const kind of await this.alerts.pendingKinds()) if (!this.timers.has(kind)) this.flushSoon(kind);
    } catch (err) {
      this.logger.warn(`pending alerts not checked: ${(err as Error).message}`);
    }
  }

  /** Sends without holding the kind's flush, which would keep the events noticed meanwhile out of Postgres for the POST's length. */
  private sendAside(kind: AlertKind, row: AlertRow): void {
    const sent: Promise<void> = this.send(row)
      .catch((err: Error) => this.logger.warn(`alert ${kind}: ${err.message}`))
      .finally(() => this.sending.delete(sent));
    this.sending.add(sent);
  }

  private async send(row: AlertRow): Promise<void> {
    const text = this.textOf(row.kind, row.count, row.detail);
    const outcome = await this.deliver({ text, kind: row.kind, count: row.count, entries: row.entries, dashboard_url: this.dashboardUrl() });
    await this.alerts.finish(row.id, outcome.status, text, outcome.error, outcome.http_status);
  }

  /** One POST with a short time-out; the URL's path (its secret) is never logged, only its host. */
  private async deliver(message: AlertMessage): Promise<AlertOutcome> {
    const url = this.config.alerts.webhookUrl;
    if (!url) return { status: 'suppressed', error: 'ALERT_WEBHOOK_URL is not set', http_status: null };
    const host = alertHost(url) ?? '(no url)';
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(message),
        signal: AbortSignal.timeout(this.config.alerts.timeoutMs),
      });
      await res.arrayBuffer().catch(() => undefined);
      if (res.ok) return { status: 'sent', error: null, http_status: res.status };
      const error = `${host} answered HTTP ${res.status}`;
      this.logger.warn(`alert ${message.kind} not delivered: ${error}`);
      return { status: 'failed', error, http_status: res.status };
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      const why =
        e.name === 'TimeoutError' || e.name === 'AbortError'
          ? `no answer within ${this.config.alerts.timeoutMs} ms`
          : (e.cause?.code ?? e.message ?? 'unknown error').replaceAll(url, host);
      const error = `${host}: ${why}`;
      this.logger.warn(`alert ${message.kind} not delivered: ${error}`);
      return { status: 'failed', error, http_status: null };
    }
  }

  private dashboardUrl(): string | null {
    return this.config.publicUrl ? `${this.config.publicUrl}/admin` : null;
  }

  /** One readable sentence with the count (Slack shows it as is; what others wrote in it is escaped: `slackEscape`). */
  private textOf(kind: AlertKind, count: number, detail: string | null): string {
    const latest = detail ? ` Latest: ${slackEscape(detail)}` : '';
    switch (kind) {
      case 'action_failed':
        return `crm-sync: ${count} sync ${count === 1 ? 'action' : 'actions'} failed for good and need review.${latest}`;
      case 'record_crm_token_refused':
        return `crm-sync: Zoho CRM refused the refresh token ${count === 1 ? 'once' : `${count} times`}; re-authorise and update RECORD_CRM_REFRESH_TOKEN.${latest}`;
      case 'webhooks_unavailable':
        return `crm-sync: ${count} ${count === 1 ? 'webhook was' : 'webhooks were'} refused with 503 because Postgres could not store them; the service will send them again.${latest}`;
      case 'revenue_drift':
        return `crm-sync: ${count} revenue ${count === 1 ? 'drift' : 'drifts'} found: a CRM holds otherwise than the service approved; heal or accept on the Revenue screen.${latest}`;
      case 'test':
        return 'crm-sync: test alert from the console; alerts reach this channel.';
    }
  }
}

/**
 * Text for Slack's `text` with its control characters escaped, as Slack asks (`&` `&amp;`, `<` `&lt;`, `>` `&gt;`:
 * https://api.slack.com/reference/surfaces/formatting#escaping): a detail quotes CRM names and other systems'
 * answers, which could otherwise carry `<!channel>`, a mention or a link with a text of their choosing.
 */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The host of the alert URL: all that is ever shown or logged of it (its path is usually a secret). */
export function alertHost(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).host;
  } catch {
    return '(invalid url)';
  }
}

/** Two sets of events of one kind as one (the first's ids first). */
function merge(a: Buffered | undefined, b: Buffered | undefined): Buffered {
  return {
    count: (a?.count ?? 0) + (b?.count ?? 0),
    entries: [...(a?.entries ?? []), ...(b?.entries ?? [])].slice(0, MAX_ALERT_ENTRIES),
    detail: b?.detail ?? a?.detail ?? null,
  };
}
