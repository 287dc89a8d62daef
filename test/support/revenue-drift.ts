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
