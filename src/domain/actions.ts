import type { Address, Customer, RecordModule, SalesRep } from '../service-api/service-api.types.js';

/** The CRMs crm-sync pushes to. */
export type CrmName = 'appointment' | 'record';

export const SYNC_TRIGGERS = ['webhook', 'admin', 'schedule', 'reconcile', 'automation'] as const;
export type SyncTrigger = (typeof SYNC_TRIGGERS)[number];

/** A record of the record CRM: `Deals/4150868000005277036`. Ids stay exact strings. */
export type RecordRef = {
  module: RecordModule;
  recordId: string;
};

/**
 * Every kind of sync action, with who must run it: `core` (always), or the CRMs whose module runs it when that CRM
 * is configured. The daemon refuses to start when one of them has no handler. `route_delivery` is only ever
 * recorded as a decision (skipped), never run; `admin_write` only records an admin's write that created no
 * action (status succeeded, `actor` set).
 */
export const ACTION_KINDS = {
  associate: 'core',
  associate_project: 'core',
  reconcile: 'core',
  revenue_check: 'core',
  push_drawings: ['appointment'],
  push_proposal_pdf: ['appointment'],
  push_line_items: ['appointment'],
  set_status: ['appointment'],
  add_note: ['appointment', 'record'],
  attach_pdf: ['record'],
  update_deal: ['record'],
  push_quote: ['record'],
  check_service_push: ['appointment'],
  create_project: 'core',
  associate_automated: 'core',
  poll_changes: ['appointment', 'record'],
  suggest_mapping: ['appointment', 'record'],
  auto_map: 'core',
  route_delivery: 'never run',
  admin_write: 'never run',
} as const satisfies Record<string, 'core' | 'never run' | readonly CrmName[]>;

export type ActionKind = keyof typeof ACTION_KINDS;

/** Every action kind, in ACTION_KINDS' order: the OpenAPI enum `ActionKind`, which the console's Kind filter lists. */
export const ACTION_KIND_NAMES = Object.keys(ACTION_KINDS) as ActionKind[];

/** `associate`: the mappings one A2 call (or one C1 call) associates. */
export interface AssociatePayload {
  mapping_ids: string[];
}

/** `push_proposal_pdf`: the signed PDF at `pdf_url` (an approval), or else R4's export of `drawing_id`. */
export interface ProposalPdfPayload {
  pdf_url?: string;
  proposal_id?: string;
  drawing_id?: string;
  drawing_version_id?: string;
  /** An approval's total (exact decimal text), for the funnel. */
  amount?: string;
  /** A revenue heal: writes its own kind only, without the chain's next step (a person's value there stays). */
  alone?: boolean;
}

/** `push_line_items`: the drawing whose line items become the appointment's sale, at a version when given. */
export interface LineItemsPayload {
  drawing_id: string;
  drawing_version_id?: string;
  /** An approval's total (exact decimal text), for the funnel. */
  amount?: string;
  /** A revenue heal: writes its own kind only, without the chain's next step (a person's value there stays). */
  alone?: boolean;
}

/** `attach_pdf`: either a proposal exported now from a drawing (the export prompt), or a PDF at a given address. */
export type AttachPdfPayload = RecordRef & {
  drawingId?: string;
  /** The delivery's short id: part of the attachment's name, so that every try of one delivery finds the same file. */
  deliveryShortId?: string;
  pdfUrl?: string;
  fileName?: string;
  proposalId?: string;
};

export type RecordNotePayload = RecordRef & {
  title: string;
  content: string;
  proposalId?: string;
};

/**
 * `update_deal`: what a proposal's status change means for the mapped Deal. `amount` is the approved total as exact
 * decimal text (a change order's revised total); the stage is the record CRM's automation setting when it runs.
 */
export type UpdateDealPayload = RecordRef & {
  proposalId: string;
  status: 'APPROVED' | 'LOST' | 'VOID';
  amount?: string;
  /** The approval's date, `YYYY-MM-DD` (UTC): what entries recorded before `approvedAt` carry. */
  closingDate?: string;
  /** When the approval was learnt (ISO 8601): Closing_Date is its day in the Zoho org's time zone. */
  approvedAt?: string;
  /** A revenue heal: only these fields are written (a person's value of the others stays); absent: all three. */
  only?: DealField[];
};

export type DealField = 'Amount' | 'Stage' | 'Closing_Date';

/**
 * `push_quote`: the drawing's line items (D2, at a version when given) as the Quoted_Items of the mapped Quote, or of
 * the drawing's own Quote linked to the mapped Deal. A proposal is known by the drawing it prices.
 */
export type PushQuotePayload = RecordRef & {
  drawingId: string;
  drawingVersionId?: string;
  proposalId?: string;
};

/**
 * `check_service_push`: with the service pushing to a Salesforce org itself, what should have arrived on the
 * appointment by the time the entry runs: a drawing PDF, or the proposal file and the Sold result, newer than `since`.
 */
export interface ServicePushCheckPayload {
  expect: 'drawing' | 'proposal';
  drawing_id?: string;
  /** ISO 8601: files created before this do not count. */
  since: string;
}

export interface AppointmentNotePayload {
  text: string;
  proposal_id?: string;
}

/** `revenue_check`: a pass of the revenue check, over what changed or over every approved record. */
export interface RevenueCheckPayload {
  scope: ReconcileScope;
}

export const RECONCILE_SCOPES = ['changes', 'full'] as const;
export type ReconcileScope = (typeof RECONCILE_SCOPES)[number];

/**
 * `reconcile`: which pass (an entry without a scope, from before there were two, is a changes pass). A full pass
 * also keeps its position here as it goes, so a run killed mid-way continues after the last project it finished.
 */
export interface ReconcilePayload {
  scope?: ReconcileScope;
  /** The last project done, in byte order of its id. */
  after?: string;
  /** Projects done so far, and how many were mapped when the pass began. */
  done?: number;
  total?: number;
}

/** A CRM record an automation read: an appointment, or a Zoho record of a module. Ids stay exact strings. */
export type AutomatedRecord = { crm: 'appointment'; id: string } | { crm: 'record'; module: RecordModule; id: string };

/**
 * `create_project`: the project one CRM record gets, as the record was when read (the name is fixed then, so every
 * try of the entry looks for, and creates, the same name). The owner is chosen when it runs, from the settings then.
 */
export interface CreateProjectPayload {
  record: AutomatedRecord;
  name: string;
  customer?: Customer;
  work_site_address?: Address;
  sales_rep?: SalesRep;
  job_number?: string;
}

/**
 * `suggest_mapping`: look in one CRM (the entry's) for records matching an unmapped project, as the project was when
 * its event arrived. `looked_for` says what was looked for (the suggestion keeps it, so the same look is not made twice).
 */
export interface SuggestMappingPayload {
  project_id: string;
  job_number: string | null;
  email: string | null;
  phone: string | null;
  /** The customer's name, for the names' likeness (absent in entries recorded before it was kept: read from `project`). */
  customer_name?: string | null;
  looked_for: string;
}

/** `auto_map`: a suggestion with exactly one candidate, mapped without review (`auto_accept`). */
export interface AutoMapPayload {
  suggestion_id: string;
  candidate: string;
  matched_on: string[];
}

/** The payload each kind of action carries (its input, stored with the entry; enough to run it again). */
export interface ActionPayloads {
  associate: AssociatePayload;
  associate_project: { project_id: string };
  reconcile: ReconcilePayload;
  push_drawings: Record<string, never>;
  push_proposal_pdf: ProposalPdfPayload;
  push_line_items: LineItemsPayload;
  revenue_check: RevenueCheckPayload;
  set_status: { status: string };
  add_note: AppointmentNotePayload | RecordNotePayload;
  attach_pdf: AttachPdfPayload;
  update_deal: UpdateDealPayload;
  push_quote: PushQuotePayload;
  check_service_push: ServicePushCheckPayload;
  create_project: CreateProjectPayload;
  /** Starts the association of the CRM's pending mappings (the ones automations made gather behind its coalesce key). */
  associate_automated: Record<string, never>;
  /** A read of the CRM's changes for the automations, asked for now (the schedule's reads record no entry). */
  poll_changes: Record<string, never>;
  suggest_mapping: SuggestMappingPayload;
  auto_map: AutoMapPayload;
  route_delivery: Record<string, never>;
  /** An admin write that created no action (a mapping created, removed or imported, a retry): its record. */
  admin_write: Record<string, unknown>;
}

/** `Omit` over each member of a union (the built-in one merges the members). */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

interface NewActionFields {
  trigger: SyncTrigger;
  crm: CrmName | null;
  projectId: string | null;
  target: string | null;
  /** `queued` (default) runs it; `skipped` or `failed` only records a decision that needs no run. */
  status?: 'queued' | 'skipped' | 'failed' | 'succeeded';
  detail?: string;
  error?: string;
  /** Creating an action with a key that exists already returns the existing one. */
  dedupeKey?: string;
  /** While an action with this key is still queued, a new one joins it instead of being created. */
  coalesceKey?: string;
  /** Run no earlier than this many ms from now (lets a burst gather behind a coalesce key). */
  delayMs?: number;
  inboxId?: string;
  parentId?: string;
  /** The admin (token name) whose request created the action; unset for the daemon's own work. */
  actor?: string;
}

/** An action to record and, when `queued`, to run: its kind and that kind's payload. */
export type NewAction = { [K in ActionKind]: NewActionFields & { kind: K; payload?: ActionPayloads[K] } }[ActionKind];
