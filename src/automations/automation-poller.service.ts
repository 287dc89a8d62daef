import { Inject, Injectable, Logger } from '@nestjs/common';
import { APPOINTMENT_CRM, type AppointmentCrm, type AppointmentDetails, type AppointmentPage } from '../appointment-crm/appointment-crm.js';
import type { AppointmentCrmAutomation, AutomationCrm } from '../automation-settings/automation-settings.js';
import { AutomationSettingsService } from '../automation-settings/automation-settings.service.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { withAdvisoryLock } from '../database/advisory-lock.js';
import { OutboundError } from '../http/outbound-error.js';
import { MappingLookupService } from '../mappings/mapping-lookup.service.js';
import { MaintenanceTasksService } from '../queues/maintenance.service.js';
import { ActionRecorderService } from '../sync-log/action-recorder.service.js';
import type { NewAction } from '../sync-log/action.types.js';
import type { SyncLogEntry } from '../sync-log/sync-log.entity.js';
import { appointmentQualifies, projectOfAppointment } from './appointment-changes.js';
import { AutomationPollRepository } from './automation-poll.repository.js';

/** Appointments per page of the changes listing: one page is in memory at a time. */
export const APPOINTMENT_PAGE_SIZE = 200;
/** A read stops after this many pages (its position is saved) and the next one goes on: no read runs for ever. */
const MAX_PAGES_PER_READ = 1_000;

export type PollOutcome =
  { state: 'off' } | { state: 'busy' } | { state: 'read'; changed: number; qualified: number; created: number; pages: number; cursor: string | null };

/**
 * Reads each CRM's changes for the automations: every AUTOMATION_POLL_SECONDS on one replica (a BullMQ job
 * scheduler), or when asked (a `poll_changes` entry). One read per CRM at a time across replicas (an advisory lock;
 * a read that finds another running leaves the changes to it). Pages are read one at a time: each page's qualifying
 * records become `create_project` entries (one per record ever: their dedupe key), then the position is saved, so a
 * read cut off anywhere resumes after the last page whose entries are recorded.
 */
@Injectable()
export class AutomationPollerService {
  private readonly logger = new Logger(AutomationPollerService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(APPOINTMENT_CRM) private readonly appointmentCrm: AppointmentCrm,
    private readonly settings: AutomationSettingsService,
    private readonly polls: AutomationPollRepository,
    private readonly mappings: MappingLookupService,
    private readonly actions: ActionRecorderService,
    tasks: MaintenanceTasksService,
  ) {
    tasks.register({
      name: 'automation-poll-appointment',
      everyMs: config.automationPollSeconds * 1000,
      firstRunAfterOnePeriod: true,
      run: async () => {
        await this.poll('appointment');
      },
    });
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
    if (crm !== 'appointment') throw new Error(`no reader of the ${crm} CRM's changes`);
    const settings = await this.settings.appointmentCrm();
    if (!settings.create_projects) return { state: 'off' };
    return withAdvisoryLock<PollOutcome>(this.config.databaseUrl, `automation-poll:${crm}`, () => this.readAppointments(settings, entryId), {
      ifTaken: () => ({ state: 'busy' }),
    });
  }

  private async readAppointments(settings: AppointmentCrmAutomation, entryId: string | null): Promise<PollOutcome> {
    const start = await this.polls.find('appointment');
    const since = start.cursor ? new Date(start.cursor) : null;
    let token = start.pageToken;
    let cursor = start.cursor;
    const outcome = { state: 'read' as const, changed: 0, qualified: 0, created: 0, pages: 0, cursor };
    try {
      while (outcome.pages < MAX_PAGES_PER_READ) {
        const page = await this.changedAppointments(since, token);
        outcome.pages += 1;
        outcome.changed += page.items.length;
        const { qualified, created } = await this.recordProjects(page.items, settings, entryId);
        outcome.qualified += qualified;
        outcome.created += created;
        cursor = latestChange(page.items) ?? cursor;
        if (page.next_cursor && page.next_cursor === token) throw new Error('the appointment CRM answered the same page again (its next_cursor did not move)');
        token = page.next_cursor;
        // Mid-listing the start stays as it was, with the page to go on from; once the listing ends, the next read
        // asks for changes from the last one seen (itself included: reading it again is harmless).
        await this.polls.savePosition('appointment', token ? start.cursor : cursor, token);
        if (!token) break;
      }
      outcome.cursor = token ? start.cursor : cursor;
      await this.polls.finishRun('appointment', entryId, null);
      if (outcome.created > 0) this.logger.log(`appointment CRM: ${outcome.created} project(s) to create from ${outcome.changed} change(s)`);
      return outcome;
    } catch (err) {
      await this.polls.finishRun('appointment', entryId, (err as Error).message.slice(0, 1000)).catch(() => undefined);
      throw err;
    }
  }

  /** A page of changes; a page token the CRM no longer knows (400) starts the listing again from the saved time. */
  private async changedAppointments(since: Date | null, token: string | null): Promise<AppointmentPage> {
    try {
      return await this.appointmentCrm.listChangedAppointments(since, token, APPOINTMENT_PAGE_SIZE);
    } catch (err) {
      if (!token || !(err instanceof OutboundError) || err.status !== 400) throw err;
      this.logger.warn(`the appointment CRM refused the saved page token (${err.excerpt}); reading again from ${since?.toISOString() ?? 'the start'}`);
      return this.appointmentCrm.listChangedAppointments(since, null, APPOINTMENT_PAGE_SIZE);
    }
  }

  /** One `create_project` entry per qualifying appointment with no mapping (an entry recorded before is kept). */
  private async recordProjects(
    items: AppointmentDetails[],
    settings: AppointmentCrmAutomation,
    parentId: string | null,
  ): Promise<{ qualified: number; created: number }> {
    const byId = new Map(items.filter((a) => appointmentQualifies(a, settings)).map((a) => [a.id, a]));
    if (byId.size === 0) return { qualified: 0, created: 0 };
    const mapped = await this.mappings.appointmentsMappedAmong([...byId.keys()]);
    const actions: NewAction[] = [...byId.values()]
      .filter((a) => !mapped.has(a.id))
      .map((a) => ({
        kind: 'create_project',
        trigger: 'automation',
        crm: 'appointment',
        projectId: null,
        target: a.id,
        payload: projectOfAppointment(a),
        dedupeKey: `create_project:appointment:${a.id}`,
        ...(parentId ? { parentId } : {}),
      }));
    if (actions.length === 0) return { qualified: byId.size, created: 0 };
    const recorded = await this.actions.record(actions);
    return { qualified: byId.size, created: recorded.filter((r) => r.created).length };
  }
}

/** The change time of the last item (the listing is oldest first), as ISO 8601; null when there is none readable. */
function latestChange(items: AppointmentDetails[]): string | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const at = Date.parse(items[i].updated_at ?? '');
    if (!Number.isNaN(at)) return new Date(at).toISOString();
  }
  return null;
}
