import type { Address, Customer, ProposalStatus, RecordModule, SalesRep } from '../service-api/service-api.types.js';

/** The `data` of each event of the spec's events list, ids as exact strings. Validated by the DTOs in ./dto. */

export interface ProjectEventData {
  id: string;
  name: string;
  customer?: Customer;
  job_number?: string;
  work_site_address?: Address;
  sales_rep?: SalesRep;
  tags: string[];
  /** project.updated only: documented as `app`, `web` or `open_api`; a value added later is taken as it is. */
  source?: string | null;
}

export interface DrawingEventData {
  id: string;
  project_id: string;
  name: string;
  /** Null while the drawing has no PDF yet: the push reads the drawing again (D1) anyway. */
  pdf_url: string | null;
  png_url: string | null;
  tags: string[];
}

export interface ProposalOption {
  id: string;
  name: string;
  drawing_id: string;
  drawing_version_id: string;
  /** A number, or its exact decimal text when a double cannot hold it. */
  total: number | string;
  pdf_url: string;
}

export interface ProposalSignedData {
  project_id: string;
  name: string;
  url: string;
  drawing_id: string;
  drawing_version_id: string;
}

export interface ProposalSentData {
  project_id: string;
  proposal_id: string;
  name: string;
  customer_name: string;
  contact_email: string;
  sales_representative: string;
  proposal_options: ProposalOption[];
}

export interface ProposalApprovedData extends Omit<ProposalSentData, 'proposal_options'> {
  approved_option: { name: string; drawing_id: string; drawing_version_id: string; total: number | string; pdf_url: string };
}

export interface ProposalStatusChangedData {
  proposal_id: string;
  project_id: string;
  name: string;
  status: ProposalStatus;
  sales_representative: string;
  contact_email: string;
  customer_name: string;
  customer_email: string;
  document_number?: string;
  close_note?: string;
  total?: number | string;
  pdf_url?: string;
  approved_option?: { id?: string; drawing_id: string; drawing_version_id?: string };
  initial_proposal_id?: string;
  proposal_options?: ProposalOption[];
  template_id?: string | null;
}

export interface ProposalViewedData {
  proposal_id: string;
  project_id: string;
  name: string;
  viewed_at: string;
  status: string;
  sales_representative: string;
  contact_email: string;
  customer_name: string;
  customer_email: string;
  document_number?: string;
  initial_proposal_id?: string;
  template_id?: string;
}

export interface PaymentReceivedData {
  proposal_id: string;
  drawing_id: string;
  /** A number, or its exact decimal text when a double cannot hold it. */
  paid_amount: number | string;
  /** `service_payment` or `mark_as_paid` as documented; a channel added since is taken as it came. */
  pay_channel: string;
  paid_time?: string;
  paid_date?: string;
  payment_method: string;
}

/** A payment amount with two decimals; one beyond a double's precision arrives as digits and is kept as given. */
export function paymentAmountText(amount: number | string): string {
  return typeof amount === 'number' ? amount.toFixed(2) : amount;
}

/**
 * What makes a payment one fact, whether a webhook or reconciliation (R5) reports it: the payloads carry no payment
 * id, so proposal, channel, time or date, amount and method. Every CRM module keys its payment note on this.
 */
export function paymentFact(
  payment: Pick<PaymentReceivedData, 'proposal_id' | 'pay_channel' | 'paid_time' | 'paid_date' | 'payment_method'> & { paid_amount: number | string },
): string {
  const date = payment.paid_time ?? payment.paid_date ?? '';
  return [payment.proposal_id, payment.pay_channel, date, paymentAmountText(payment.paid_amount), payment.payment_method].join(':');
}

/**
 * Made up by reconciliation only (no webhook announces it): a payment R5 now reports `returned`, or with a
 * `refunded_amount` above 0. `reversal` says which; a payment both returned and refunded is told twice, once each.
 */
export interface PaymentReversedData extends PaymentReceivedData {
  project_id: string;
  reversal: 'returned' | 'refunded';
  refunded_amount?: number;
}

/** What makes a reversal one fact: the payment, what happened to it, and for a refund its amount (a larger refund is news). */
export function paymentReversalFact(data: PaymentReversedData): string {
  return `${paymentFact(data)}:${data.reversal === 'returned' ? 'returned' : `refunded:${paymentAmountText(data.refunded_amount ?? 0)}`}`;
}

/** The words of a reversal, for a note: a title and a sentence. */
export function paymentReversalText(data: PaymentReversedData): { title: string; sentence: string } {
  const amount = paymentAmountText(data.paid_amount);
  return data.reversal === 'returned'
    ? { title: 'Payment returned', sentence: `The payment of ${amount} for proposal ${data.proposal_id} was returned.` }
    : {
        title: `Payment refunded: ${paymentAmountText(data.refunded_amount ?? 0)}`,
        sentence: `${paymentAmountText(data.refunded_amount ?? 0)} of the payment of ${amount} for proposal ${data.proposal_id} was refunded.`,
      };
}

export interface AppointmentPromptData {
  project_id: string;
  drawing_id: string;
  appointment_id: string;
  yes_no: boolean;
}

/** Normalised: the `module` / `record_id` aliases are read into the long names. */
export interface RecordPromptData {
  drawing_id: string;
  record_crm_module: RecordModule;
  record_crm_record_id: string;
  yes_no: boolean;
  project_id?: string;
}

export interface EventDataByName {
  'project.created': ProjectEventData;
  'project.updated': ProjectEventData;
  'drawing.created': DrawingEventData;
  'drawing.updated': DrawingEventData;
  'proposal.signed': ProposalSignedData;
  'proposal.sent': ProposalSentData;
  'proposal.approved': ProposalApprovedData;
  'proposal.status_changed': ProposalStatusChangedData;
  'proposal.viewed': ProposalViewedData;
  'proposal.payment.received': PaymentReceivedData;
  /** The appointment CRM's export-prompt webhook (its event name is not given by the spec). */
  'appointment_crm.export_prompt': AppointmentPromptData;
  /** The record CRM's export-prompt webhook. */
  'record_crm.export_prompt': RecordPromptData;
  /** Reconciliation's own: a payment returned or refunded (see PaymentReversedData). */
  'reconcile.payment_reversed': PaymentReversedData;
}

export type EventName = keyof EventDataByName;

export const KNOWN_EVENTS = [
  'project.created',
  'project.updated',
  'drawing.created',
  'drawing.updated',
  'proposal.signed',
  'proposal.sent',
  'proposal.approved',
  'proposal.status_changed',
  'proposal.viewed',
  'proposal.payment.received',
] as const;

/**
 * A delivery as the CRM modules see it: a stored webhook (`trigger: 'webhook'`), or one that reconciliation made
 * up from the service's current state (`trigger: 'reconcile'`, no inbox row) to repair what a lost webhook left
 * behind. Handlers therefore key actions that must happen once per fact (an approval, a payment) on the fact,
 * not on the delivery, so a made-up delivery for something already pushed is a no-op.
 */
export type RoutedDelivery = {
  [E in EventName]: {
    trigger: 'webhook' | 'reconcile';
    inboxId: string | null;
    receivedAt: Date;
    /** A short id of the delivery (for names that must differ per delivery, e.g. Zoho attachments). */
    shortId: string;
    event: E;
    data: EventDataByName[E];
    /** The project the delivery concerns, when known or resolvable (a payment's through its drawing). */
    projectId: string | null;
  };
}[EventName];
