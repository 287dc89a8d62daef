import { Inject, Injectable, Logger } from '@nestjs/common';
import { APPOINTMENT_CRM, type AppointmentCrm } from '../appointment-crm/appointment-crm.js';
import { SalesforceOrgsService } from '../appointment-crm/adapters/salesforce/salesforce-orgs.service.js';
import type { AppointmentCrmAutomation, AutomationCrm, RecordCrmAutomation } from '../crm-settings/automation-settings.js';
import { AutomationSettingsService } from '../crm-settings/automation-settings.service.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { withAdvisoryLock } from '../database/advisory-lock.js';
import type { CreateProjectPayload } from '../domain/actions.js';
import { OutboundError } from '../http/outbound-error.js';
import { MappingLookupService } from '../mappings/mapping-lookup.service.js';
import { MaintenanceTask } from '../queues/maintenance-task.decorator.js';
import { RECORD_CRM, type ChangedRecordsPage, type RecordCrm, type ZohoRecord } from '../record-crm/record-crm.js';
import type { RecordModule } from '../service-api/service-api.types.js';
import { ActionRecorderService } from '../actions/action-recorder.service.js';
import type { NewAction } from '../actions/action.types.js';
import type { SyncLogEntry } from '../sync-log/sync-log.row.js';
import { appointmentQualifies, projectOfAppointment } from './appointment-changes.js';
import { AppointmentStatusesRepository } from '../appointment-crm/appointment-statuses.repository.js';
import { AutomationReadsRepository } from './automation-reads.repository.js';
import { AutomationPollRepository } from './automation-poll.repository.js';
import { NotificationChannelRepository } from './notification-channel.repository.js';
import { notificationsFlowing } from './notifications-flowing.js';
import { CONTACT_FIELDS, contactIdsOf, hasContactLookup, projectOfRecord, recordFields, recordQualifies } from './record-changes.js';

/** Appointments per page of the changes listing: one page is in memory at a time. */
export const APPOINTMENT_PAGE_SIZE = 200;
/** Zoho's largest page. */
export const RECORD_PAGE_SIZE = 200;
/**
 * A read stops after this many pages or this long (its position is saved) and the next one goes on: no read holds a
 * worker for ever (the schedule's reads share the maintenance queue's two slots per replica with the other tasks).
 */
const MAX_PAGES_PER_READ = 1_000;
const READ_BUDGET_MS = 60_000;

export type PollOutcome =
  | { state: 'off' }
  | { state: 'busy' }
  | { state: 'read'; changed: number; qualified: number; created: number; pages: number; cursor: string | null; more: boolean };

/** What one page of changes gave. */
interface PageRead {
  changed: number;
  qualified: number;
  created: number;
  /** The last change time on the page (ISO 8601), null when it had none. */
  latest: string | null;
  nextToken: string | null;
}

/** A project to create, keyed once per record ever. */
type ProjectToCreate = { key: string; target: string; payload: CreateProjectPayload };

/**
 * Reads each CRM's changes for the automations: every AUTOMATION_POLL_SECONDS on one replica (a BullMQ job
 * scheduler per CRM), or when asked (a `poll_changes` entry). One read per CRM at a time across replicas (an
 * advisory lock; a read that finds another running leaves the changes to it). Pages are read one at a time: each
 * page's qualifying records become `create_project` entries (one per record ever: their dedupe key), then the
 * position is saved, so a read cut off anywhere resumes after the last page whose entries are recorded.
 */
@Injectable()
export class AutomationPollerService {
  private readonly logger = new Logger(AutomationPollerService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APPOINTMENT_CRM) private readonly appointmentCrm: AppointmentCrm,
    @Inject(RECORD_CRM) private readonly recordCrm: RecordCrm,
    private readonly salesforce: SalesforceOrgsService,
    private readonly settings: AutomationSettingsService,
    private readonly polls: AutomationPollRepository,
    private readonly reads: AutomationReadsRepository,
    private readonly statusesSeen: AppointmentStatusesRepository,
    private readonly mappings: MappingLookupService,
    private readonly actions: ActionRecorderService,
    private readonly channels: NotificationChannelRepository,
  ) {}

  @MaintenanceTask('automation-poll-appointment', { every: (config) => config.automationPollSeconds * 1000, firstRunAfterOnePeriod: true })
  async pollAppointmentCrmOnSchedule(): Promise<void> {
    if (this.slowedDown()) return;
    await this.poll('appointment');
  }

  @MaintenanceTask('automation-poll-record', { every: (config) => config.automationPollSeconds * 1000, firstRunAfterOnePeriod: true })
  async pollRecordCrmOnSchedule(): Promise<void> {
    if (await this.notifiedRecently()) return;
    await this.poll('record');
  }

  /**
   * While Zoho's notifications bring the record CRM's changes (record-notifications.service.ts), the schedule reads
   * them only every AUTOMATION_NOTIFIED_POLL_SECONDS, as a safety net for a notification lost on the way.
   */
  private async notifiedRecently(): Promise<boolean> {
    const [settings, channel, poll] = await Promise.all([this.settings.recordCrm(), this.channels.find(), this.polls.find('record')]);
    if (!notificationsFlowing(channel, settings) || !poll.lastRunAt) return false;
    return Date.now() - new Date(poll.lastRunAt).getTime() < this.config.automationNotifiedPollSeconds * 1000;
  }

  private scheduledRuns = 0;

  /**
   * Past APPOINTMENT_CRM_SLOW_POLL_PERCENT of a Salesforce org's daily API requests (as its last answer said), the
   * schedule reads its changes on one run in four, keeping the rest of the allocation for pushes and people.
   */
  private slowedDown(): boolean {
    const usage = this.salesforce.usage();
    if (!usage || usage.max <= 0 || usage.used / usage.max < this.config.salesforce.slowPollShare) return false;
    return this.scheduledRuns++ % 4 !== 0;
  }

  /** A read of the CRM's changes to run now: its sync log entry (one still queued is joined, not doubled). */
  async requestRead(crm: AutomationCrm, actor: string): Promise<SyncLogEntry> {
    const [{ entry }] = await this.actions.record([
      { kind: 'poll_changes', trigger: 'admin', crm, projectId: null, target: null, payload: {}, coalesceKey: `poll_changes:${crm}`, actor },
    ]);
    return entry;
  }

  /** Reads the CRM's changes unless creation is off for it or another read is running. */
  async poll(crm: AutomationCrm, entryId: string | null = null): Promise<PollOutcome> {
    const lock = `automation-poll:${crm}`;
    const busy = { ifTaken: (): PollOutcome => ({ state: 'busy' }) };
    if (crm === 'appointment') {
      const settings = await this.settings.appointmentCrm();
      if (!settings.create_projects) return { state: 'off' };
      return withAdvisoryLock(
        this.config.databaseUrl,
        lock,
        () => this.read(crm, entryId, (cursor, token, readFrom) => this.appointmentPage(settings, cursor, token, entryId, readFrom)),
        busy,
      );
    }
    const settings = await this.settings.recordCrm();
    if (!settings.create_projects) return { state: 'off' };
    return withAdvisoryLock(
      this.config.databaseUrl,
      lock,
      () => this.read(crm, entryId, (cursor, token) => this.recordPage(settings, cursor, token, entryId)),
      busy,
    );
  }

  /**
   * Reads pages from the saved position until the listing ends. Mid-listing the saved start stays as it was, with
   * the page to go on from; once the listing ends, the next read asks for changes from the last one seen.
   */
  private async read(
    crm: AutomationCrm,
    entryId: string | null,
    readPage: (cursor: string | null, token: string | null, readFrom: string | null) => Promise<PageRead>,
  ): Promise<PollOutcome> {
    const start = await this.polls.find(crm);
    let token = start.pageToken;
    let cursor = start.cursor;
    const outcome = { state: 'read' as const, changed: 0, qualified: 0, created: 0, pages: 0, cursor, more: false };
    const deadline = Date.now() + READ_BUDGET_MS;
    try {
      while (outcome.pages < MAX_PAGES_PER_READ && Date.now() < deadline) {
        const page = await readPage(start.cursor, token, start.readFrom);
        outcome.pages += 1;
        outcome.changed += page.changed;
        outcome.qualified += page.qualified;
        outcome.created += page.created;
        // Never back: a read that starts behind its watermark (the look-back) meets older changes again.
        cursor = laterOf(cursor, page.latest);
        if (page.nextToken && page.nextToken === token) throw new Error(`the ${crm} CRM answered the same page again (its page token did not move)`);
        const from = { cursor: start.cursor, pageToken: token };
        token = page.nextToken;
        if (!(await this.polls.savePosition(crm, from, { cursor: token ? start.cursor : cursor, pageToken: token }))) {
          this.logger.log(`${crm} CRM: the position was set anew while reading (a save of the settings); the next read starts there`);
          await this.polls.finishRun(crm, entryId, null);
          return { ...outcome, more: true };
        }
        // For the funnel: counted once the page is recorded (a page read again after a cut-off read counts twice).
        await this.reads.count(crm, page.changed, page.qualified);
        if (!token) break;
      }
      outcome.cursor = token ? start.cursor : cursor;
      outcome.more = token !== null;
      await this.polls.finishRun(crm, entryId, null);
      if (outcome.created > 0) this.logger.log(`${crm} CRM: ${outcome.created} project(s) to create from ${outcome.changed} change(s)`);
      return outcome;
    } catch (err) {
      await this.polls.finishRun(crm, entryId, (err as Error).message.slice(0, 1000)).catch(() => undefined);
      throw err;
    }
  }

  /**
   * A page of the appointments changed since the watermark less the look-back (APPOINTMENT_CRM_POLL_LOOKBACK_SECONDS):
   * a change stamped before the watermark may become visible after it (a transaction that started earlier commits
   * later: improveit 360's saves run the package's triggers and flows), so each read looks at that window again. What
   * it finds again records nothing again (a project is created once per appointment ever); the funnel counts only the
   * changes past the watermark.
   */
  private async appointmentPage(
    settings: AppointmentCrmAutomation,
    cursor: string | null,
    token: string | null,
    parentId: string | null,
    readFrom: string | null,
  ): Promise<PageRead> {
    // Never before the start an admin gave (turning creation on, a start_from): what changed before it is left alone.
    const floor = readFrom ? Date.parse(readFrom) : -Infinity;
    const since = cursor ? new Date(Math.max(Date.parse(cursor) - this.config.appointmentPollLookbackMs, floor)) : null;
    const page = await this.retriedWithoutToken(token, (t) => this.appointmentCrm.listChangedAppointments(since, t, APPOINTMENT_PAGE_SIZE));
    await this.statusesSeen.saw(page.items.map((a) => a.status));
    const byId = new Map(page.items.filter((a) => appointmentQualifies(a, settings)).map((a) => [a.id, a]));
    const mapped = byId.size > 0 ? await this.mappings.appointmentsMappedAmong([...byId.keys()]) : new Set<string>();
    const toCreate = [...byId.values()]
      .filter((a) => !mapped.has(a.id))
      .map((a) => ({ key: `create_project:appointment:${a.id}`, target: a.id, payload: projectOfAppointment(a) }));
    const created = await this.recordProjects('appointment', toCreate, parentId);
    const watermark = cursor ? Date.parse(cursor) : -Infinity;
    const isNew = (a: { updated_at: string | null }) => !a.updated_at || !(Date.parse(a.updated_at) < watermark);
    return {
      changed: page.items.filter(isNew).length,
      qualified: [...byId.values()].filter(isNew).length,
      created,
      latest: latestOf(page.items.map((a) => a.updated_at)),
      nextToken: page.next_cursor,
    };
  }

  /**
   * A page of the module's records changed since the cursor, and the Contacts they name as customers (one call per
   * page). Zoho lists records modified after the second named, so the read asks from a second earlier: a record
   * changed within that second is read again rather than missed.
   */
  private async recordPage(settings: RecordCrmAutomation, cursor: string | null, token: string | null, parentId: string | null): Promise<PageRead> {
    const module: RecordModule = settings.module;
    const modifiedSince = cursor ? new Date(Date.parse(cursor) - 1000) : null;
    const page: ChangedRecordsPage = await this.retriedWithoutToken(token, (pageToken) =>
      this.recordCrm.listChangedRecords(module, { fields: recordFields(settings), modifiedSince, pageToken, perPage: RECORD_PAGE_SIZE }),
    );
    const { qualified, created } = await this.qualify(settings, page.records, parentId);
    const latest = latestOf(page.records.map((r) => (typeof r.Modified_Time === 'string' ? r.Modified_Time : null)));
    return { changed: page.records.length, qualified, created, latest, nextToken: page.notModified ? null : page.nextPageToken };
  }

  /**
   * The records of these ids (a Zoho notification named them) read anew and qualified as a poll's page is: the
   * projects to create become `create_project` entries under the same dedupe keys. Returns how many were recorded.
   */
  async qualifyRecords(module: RecordModule, ids: string[]): Promise<number> {
    const settings = await this.settings.recordCrm();
    if (!settings.create_projects || settings.module !== module || ids.length === 0) return 0;
    const records = await this.recordCrm.getRecordsByIds(module, ids, recordFields(settings));
    const { created } = await this.qualify(settings, records, null);
    return created;
  }

  /** The qualifying records not mapped yet become `create_project` entries, with the Contacts they name as customers. */
  private async qualify(settings: RecordCrmAutomation, records: ZohoRecord[], parentId: string | null): Promise<{ qualified: number; created: number }> {
    const module: RecordModule = settings.module;
    const byId = new Map(records.filter((r) => recordQualifies(r, settings)).map((r) => [r.id, r]));
    const mapped = byId.size > 0 ? await this.mappings.recordsMappedAmong(module, [...byId.keys()]) : new Set<string>();
    const fresh = [...byId.values()].filter((r) => !mapped.has(r.id));
    const contacts = new Map<string, ZohoRecord>();
    const contactIds = hasContactLookup(module) ? contactIdsOf(fresh) : [];
    if (contactIds.length > 0)
      for (const contact of await this.recordCrm.getRecordsByIds('Contacts', contactIds, CONTACT_FIELDS)) contacts.set(contact.id, contact);
    const toCreate = fresh.map((r) => ({
      key: `create_project:record:${module}/${r.id}`,
      target: `${module}/${r.id}`,
      payload: projectOfRecord(module, r, settings, contacts),
    }));
    const created = await this.recordProjects('record', toCreate, parentId);
    return { qualified: byId.size, created };
  }

  /** A page; a page token the CRM no longer takes (400: expired, or bound to other parameters) starts the listing again. */
  private async retriedWithoutToken<T>(token: string | null, read: (token: string | null) => Promise<T>): Promise<T> {
    try {
      return await read(token);
    } catch (err) {
      if (!token || !(err instanceof OutboundError) || err.status !== 400) throw err;
      this.logger.warn(`the CRM refused the saved page token (${err.excerpt}); reading again from the saved time`);
      return read(null);
    }
  }

  /** One `create_project` entry per record (an entry recorded before, by any read, is kept: the dedupe key). */
  private async recordProjects(crm: AutomationCrm, projects: ProjectToCreate[], parentId: string | null): Promise<number> {
    if (projects.length === 0) return 0;
    const actions: NewAction[] = projects.map((p) => ({
      kind: 'create_project',
      trigger: 'automation',
      crm,
      projectId: null,
      target: p.target,
      payload: p.payload,
      dedupeKey: p.key,
      ...(parentId ? { parentId } : {}),
    }));
    const recorded = await this.actions.record(actions);
    return recorded.filter((r) => r.created).length;
  }
}

/** The last readable time of a page listed oldest change first, as ISO 8601; null when there is none. */
/** The later of two ISO times (either may be missing). */
function laterOf(a: string | null, b: string | null): string | null {
  if (!a || !b) return a ?? b;
  return Date.parse(b) > Date.parse(a) ? b : a;
}

function latestOf(times: Array<string | null>): string | null {
  for (let i = times.length - 1; i >= 0; i--) {
    const at = Date.parse(times[i] ?? '');
    if (!Number.isNaN(at)) return new Date(at).toISOString();
  }
  return null;
}
