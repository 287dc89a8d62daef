import type { LineItemsResult } from '../../src/service-api/service-api.types.js';
import { waitFor, type Harness } from './harness.js';
import { syncLogEntry } from './tables.js';

/** The states a sync log entry ends in. */
export const FINISHED = ['succeeded', 'failed', 'skipped', 'waiting'];

/** A drift as GET /api/revenue/drifts answers it (docs/operations.md, "Revenue"). */
export interface Drift {
  id: string;
  crm: string;
  target: string;
  kind: string;
  state: string;
  service_value: string | null;
  written_value: string | null;
  written_entry_id: string | null;
  crm_value: string | null;
  changed_by: string | null;
  changed_at: string | null;
  by_crm_sync: boolean;
  heal_entry_id: string | null;
  link: string | null;
}

/** What a pass's entry says of one CRM: `<name>: N record(s) compared, C call(s)`, and whether it stopped at the budget. */
export function passOutcome(detail: string | null, name: 'appointment CRM' | 'Zoho CRM') {
  const match = new RegExp(`${name}: (\\d+) record\\(s\\) compared, (\\d+) call\\(s\\)( \\(stopped at the call budget)?`).exec(detail ?? '');
  if (!match) throw new Error(`no outcome of the ${name} in ${detail}`);
  return { compared: Number(match[1]), calls: Number(match[2]), stopped: match[3] !== undefined };
}

/** Plain line items, each its own row (SKUs `<skuPrefix>-<i>`); the service's total their sum. */
export function lineItemsOf(totals: number[], skuPrefix = 'DRIFT'): LineItemsResult {
  const subtotal = totals.reduce((sum, t) => sum + t, 0);
  return {
    line_items: totals.map((total, i) => ({ name: `Item ${i}`, sku: `${skuPrefix}-${i}`, unit: 'ea', quantity: 1, price: total, cost: 0, total })),
    subtotal,
    discount: 0,
    discount_description: '',
    markup: 0,
    markup_description: '',
    taxes: [],
    total: subtotal,
    drawing_version_id: '',
  };
}

/** The entry once it has finished. */
export function finished(h: Harness, id: string) {
  return waitFor(
    async () => {
      const entry = await syncLogEntry(h, { id });
      return entry && FINISHED.includes(entry.status) ? entry : null;
    },
    20_000,
    `entry ${id} to finish`,
  );
}

/** Starts a pass through the API (202 with its sync log id) and answers the entry once it has finished. */
export async function checkPass(h: Harness, scope: 'changes' | 'full') {
  const res = await h.admin('/api/revenue/check', { method: 'POST', json: { scope } });
  expect(res.status).toBe(202);
  return finished(h, ((await res.json()) as { id: string }).id);
}

/** GET /api/revenue/drifts with these filters. */
export async function driftsOf(h: Harness, query: Record<string, string>): Promise<Drift[]> {
  const res = await h.admin(`/api/revenue/drifts?${new URLSearchParams(query)}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Drift[] }).items;
}
