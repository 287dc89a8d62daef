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
