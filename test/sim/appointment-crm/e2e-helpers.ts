import { Mapping } from '../../../src/mappings/mapping.entity.js';
import { SyncLogEntry } from '../../../src/sync-log/sync-log.entity.js';
import { APPOINTMENT_PROMPT_SECRET, EVENTS_SECRET, waitFor, type Harness } from '../../support/harness.js';
import { WebhookSender, appointmentPrompt } from '../service/index.js';

const sender = new WebhookSender();

/** A mapping row as the mappings API would leave it (that API is not this module's). */
export async function mapAppointment(
  h: Harness,
  projectId: string,
  appointmentId: string,
  status: 'pending' | 'associated' | 'failed' = 'associated',
  error: string | null = null,
): Promise<void> {
  await h.database.repo(Mapping).insert({ crm: 'appointment', appointmentId, projectId, status, error });
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
  return h.database.repo(SyncLogEntry).find({ where: { projectId }, order: { id: 'ASC' } });
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
