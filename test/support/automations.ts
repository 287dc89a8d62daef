import { allActionsFinished } from './appointment-crm.js';
import { waitFor, type Harness } from './harness.js';

type Json = Record<string, unknown>;

/**
 * Reads a CRM's changes now through the API (`POST /api/automations/:crm/run`, 202), then waits for the read's entry
 * to finish and for every action it started. Returns the read's sync log entry.
 */
export async function readChangesNow(h: Harness, crm: 'appointment-crm' | 'record-crm'): Promise<Json> {
  const res = await h.admin(`/api/automations/${crm}/run`, { method: 'POST' });
  if (res.status !== 202) throw new Error(`POST /api/automations/${crm}/run answered ${res.status}: ${await res.text()}`);
  const { id } = (await res.json()) as { id: string };
  const entry = await waitFor(
    async () => {
      const e = (await (await h.admin(`/api/sync-logs/${id}`)).json()) as Json;
      return ['succeeded', 'failed', 'skipped'].includes(e.status as string) ? e : null;
    },
    20_000,
    'the read',
  );
  await allActionsFinished(h);
  return entry;
}
