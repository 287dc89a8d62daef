import type { SyncLogEntry } from '../../../src/sync-log/sync-log.row.js';
import { APPOINTMENT_PROMPT_SECRET, EVENTS_SECRET, waitFor, type Harness } from '../../support/harness.js';
import { WebhookSender, appointmentPrompt } from '../service/index.js';
import { insertMapping, syncLogEntries } from '../../support/tables.js';

const sender = new WebhookSender();

/** A mapping row as the mappings API would leave it (that API is not this module's). */
export async function mapAppointment(
  h: Harness,
  projectId: string,
  appointmentId: string,
  status: 'pending' | 'associated' | 'failed' = 'associated',
  error: string | null = null,
): Promise<void> {
  await insertMapping(h, { crm: 'appointment', appointmentId, projectId, status, error });
}

/** One signed delivery to the events webhook; asserts it was accepted. */
export async function deliverEvent(h: Harness, body: object): Promise<void> {
  const res = await sender.deliverOnce(`${h.url}/webhooks/events`, body, { secret: EVENTS_SECRET });
  if (res.status !== 200 || !res.body.includes('accepted')) throw new Error(`event not accepted: ${res.status} ${res.body}`);
}

export async function deliverPrompt(h: Harness, data: Parameters<typeof appointmentPrompt>[0], wrapped = false): Promise<void> {
  const res = await sender.deliverOnce(`${h.url}/webhooks/appointment-crm/export-prompt`, appointmentPrompt(data, { wrapped }), {
    secret: APPOINTMENT_PROMPT_SECRET,
  });
  if (res.status !== 200 || !res.body.includes('accepted')) throw new Error(`prompt not accepted: ${res.status} ${res.body}`);
}

/** The appointment CRM's sync log entries of a project, oldest first. */
export function entriesOf(h: Harness, projectId: string): Promise<SyncLogEntry[]> {
  return syncLogEntries(h, { projectId });
}

/** Waits until the project has entries of every listed kind and none is still queued or running. */
export async function settled(h: Harness, projectId: string, kinds: string[], timeoutMs = 15_000): Promise<SyncLogEntry[]> {
  return waitFor(
    async () => {
      const entries = (await entriesOf(h, projectId)).filter((e) => e.crm === 'appointment' || e.kind === 'route_delivery');
      const done = entries.every((e) => e.status !== 'queued' && e.status !== 'running');
      return done && kinds.every((k) => entries.some((e) => e.kind === k)) ? entries : null;
    },
    timeoutMs,
    `entries ${kinds.join(', ')} of project ${projectId} to finish`,
  );
}

/** A project with one drawing, mapped (associated) to a fresh appointment `appointmentId`. */
export async function mappedAppointmentProject(h: Harness, appointmentId: string) {
  const project = h.service.addProject();
  const drawing = h.service.addDrawing(project.id);
  h.appointmentCrm!.addAppointment(appointmentId);
  await mapAppointment(h, project.id, appointmentId);
  return { project, drawing, appointmentId };
}

/** Waits until no action of any project is queued or running. */
export async function allActionsFinished(h: Harness): Promise<void> {
  await waitFor(async () => (await syncLogEntries(h, { status: ['queued', 'running'] })).length === 0, 15_000, 'all actions to finish');
}

/** Starts a reconciliation pass through the admin API (202) and answers its sync log entry once it has finished. */
export async function reconciliation(h: Harness, json: { scope: 'changes' | 'full' } | undefined, timeoutMs: number): Promise<Record<string, any>> {
  const res = await h.admin('/api/reconcile', { method: 'POST', ...(json ? { json } : {}) });
  if (res.status !== 202) throw new Error(`reconciliation not started: ${res.status} ${await res.text()}`);
  const { id } = (await res.json()) as { id: string };
  return waitFor(
    async () => {
      const entry = (await (await h.admin(`/api/sync-logs/${id}`)).json()) as Record<string, any>;
      return ['succeeded', 'failed', 'skipped'].includes(entry.status) ? entry : null;
    },
    timeoutMs,
    'the reconciliation pass',
  );
}
