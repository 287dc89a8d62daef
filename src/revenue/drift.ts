import type { CrmName } from '../domain/actions.js';

/** What differs between the service's approved revenue and a CRM's record now (docs/operations.md, "Revenue"). */
export const DRIFT_KINDS = ['amount', 'stage', 'closing_date', 'quote_total', 'quote_rows', 'sale_missing', 'sale_items', 'status', 'file_missing'] as const;
export type DriftKind = (typeof DRIFT_KINDS)[number];

export const DRIFT_STATES = ['open', 'healed', 'accepted'] as const;
export type DriftState = (typeof DRIFT_STATES)[number];

/** The action that writes the service's value of a kind again (the normal push, with its fences and read-back). */
export const HEAL_ACTION: Record<DriftKind, 'update_deal' | 'push_quote' | 'push_line_items' | 'set_status' | 'push_proposal_pdf'> = {
  amount: 'update_deal',
  stage: 'update_deal',
  closing_date: 'update_deal',
  quote_total: 'push_quote',
  quote_rows: 'push_quote',
  sale_missing: 'push_line_items',
  sale_items: 'push_line_items',
  status: 'set_status',
  file_missing: 'push_proposal_pdf',
};

/** One difference the check found: the three values side by side, who changed the CRM's last and when. */
export interface Finding {
  crm: CrmName;
  target: string;
  projectId: string | null;
  proposalId: string;
  kind: DriftKind;
  serviceValue: string | null;
  writtenValue: string | null;
  writtenEntryId: string | null;
  crmValue: string | null;
  changedBy: string | null;
  changedAt: Date | null;
  /** crm-sync's own write was the CRM's last change (auto-heal may write again); false: a person, or not known. */
  byCrmSync: boolean;
  link: string | null;
  /** The approval's sync log entry, whose payload a heal records again (as the push of HEAL_ACTION). */
  approvalEntryId: string | null;
}

/** What one record's check saw: the kinds it compared, and those that differ. */
export interface RecordCheck {
  crm: CrmName;
  target: string;
  checked: DriftKind[];
  findings: Finding[];
}

/** A drift as kept: what the check found, and what became of it. */
export interface DriftRow extends Finding {
  id: string;
  state: DriftState;
  healKind: string | null;
  /** The last heal's sync log entry. */
  healEntryId: string | null;
  acceptedServiceValue: string | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  foundAt: Date;
  seenAt: Date;
}

export interface DriftFilter {
  crm?: CrmName;
  kind?: DriftKind;
  state?: DriftState;
  projectId?: string;
}

/**
 * Whether a change at `changedAt` can be crm-sync's own write that finished at `writtenAt`: a CRM stamps a write while
 * it applies it, before its answer comes back, so that write's stamp is no later than the write's end; anything later
 * is someone else's. A CRM clock ahead of ours only makes crm-sync's writes look like someone else's (no auto-heal),
 * never the reverse beyond the clocks' difference.
 */
export function lastChangeIsOurs(changedAt: Date | null, writtenAt: Date | null): boolean {
  if (!changedAt || !writtenAt) return false;
  return changedAt.getTime() <= writtenAt.getTime();
}
