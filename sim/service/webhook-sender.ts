import { createHmac } from 'node:crypto';
import { bareNumber, toJson } from '../common/sim-server.js';
import type { ApprovedOption, DrawingView, Payment, Project, Proposal, ProposalOption } from './types.js';

/** `t=<ts>,v=<hex HMAC-SHA256 of "<ts>.<rawBody>">`, the Service-Signature header value. */
export function signWebhook(secret: string, rawBody: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const v = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');
  return `t=${timestamp},v=${v}`;
}

/** Seconds after the previous failed attempt (spec: Delivery and retries). */
export const RETRY_DELAYS_SECONDS = [15, 30, 180, 600, 1200, 1800];
const ACK_TIMEOUT_MS = 30_000;

export interface DeliverOptions {
  secret: string;
  timestamp?: number;
  /** Appended to the header as extra `k=v` elements (receivers must ignore them). */
  extraElements?: string[];
  /** Sent instead of the computed header; null omits the header. */
  headerOverride?: string | null;
}

export interface DeliveryAttempt {
  at: number;
  status?: number;
  error?: string;
}

export interface SendResult {
  attempts: DeliveryAttempt[];
  delivered: boolean;
}

export interface WebhookSenderOptions {
  /** Multiplies the retry delays and the acknowledgement timeout (e.g. 0.001 in tests). */
  timeScale?: number;
  /** The acknowledgement timeout; default 30 s × timeScale but at least 1 s, so a slow first answer is not a failure. */
  timeoutMs?: number;
}

/** Delivers webhooks as the service does: signed, with a new signature per attempt, retried on its schedule. */
export class WebhookSender {
  readonly timeScale: number;
  readonly timeoutMs: number;
  private readonly waits = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  private stopped = false;

  constructor({ timeScale = 1, timeoutMs }: WebhookSenderOptions = {}) {
    this.timeScale = timeScale;
    this.timeoutMs = timeoutMs ?? Math.max(ACK_TIMEOUT_MS * timeScale, 1000);
  }

  /** One POST; rejects on a connection error or time-out. */
  async deliverOnce(url: string, body: string | object, options: DeliverOptions): Promise<{ status: number; body: string }> {
    const raw = typeof body === 'string' ? body : toJson(body);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.headerOverride !== null) {
      const signed = signWebhook(options.secret, raw, options.timestamp);
      headers['service-signature'] = options.headerOverride ?? [signed, ...(options.extraElements ?? [])].join(',');
    }
    const res = await fetch(url, { method: 'POST', headers, body: raw, signal: AbortSignal.timeout(this.timeoutMs) });
    return { status: res.status, body: await res.text() };
  }

  /** Delivers with retries (at most 7 attempts); the same body each time, a new timestamp and signature each attempt. */
  async send(url: string, body: string | object, options: { secret: string }): Promise<SendResult> {
    const raw = typeof body === 'string' ? body : toJson(body);
    const attempts: DeliveryAttempt[] = [];
    let timestamp = 0;
    for (let i = 0; i <= RETRY_DELAYS_SECONDS.length && !this.stopped; i++) {
      if (i > 0 && !(await this.wait(RETRY_DELAYS_SECONDS[i - 1] * 1000 * this.timeScale))) break;
      const at = Date.now();
      // Scaled-down retries can fall within one second; a new timestamp (a few seconds ahead at most) keeps each signature new.
      timestamp = Math.max(Math.floor(at / 1000), timestamp + 1);
      try {
        const { status } = await this.deliverOnce(url, raw, { secret: options.secret, timestamp });
        attempts.push({ at, status });
        if (status >= 200 && status < 300) return { attempts, delivered: true };
      } catch (err) {
        attempts.push({ at, error: (err as Error).message });
      }
    }
    return { attempts, delivered: false };
  }

  /** Cancels pending retries; their `send` resolves with `delivered: false`. */
  stop(): void {
    this.stopped = true;
    for (const wait of this.waits) {
      clearTimeout(wait.timer);
      wait.resolve();
    }
    this.waits.clear();
  }

  /** Resolves true after `ms`, false when stopped first. */
  private wait(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const entry = {
        timer: setTimeout(() => {
          this.waits.delete(entry);
          resolve(!this.stopped);
        }, ms),
        resolve: () => resolve(false),
      };
      this.waits.add(entry);
    });
  }
}

export interface WebhookBody<T = Record<string, unknown>> {
  event: string;
  data: T;
}

function event(name: string, data: Record<string, unknown>): WebhookBody {
  return { event: name, data: withoutUndefined(data) };
}

function withoutUndefined(data: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined));
}

/** Ids the spec calls "identifier" (not "string") are written as bare numbers, as the service sometimes does. */
const identifier = (id: string): unknown => bareNumber(id);

function projectData(project: Project): Record<string, unknown> {
  const { id, name, customer, job_number, work_site_address, sales_rep, tags } = project;
  return { id, name, customer, job_number, work_site_address, sales_rep, tags };
}

function proposalHead(proposal: Proposal): Record<string, unknown> {
  return {
    project_id: identifier(proposal.project_id),
    proposal_id: identifier(proposal.proposal_id),
    name: proposal.name,
    customer_name: proposal.customer_name,
    contact_email: proposal.contact_email,
    sales_representative: proposal.sales_representative,
  };
}

export interface StatusChangedExtra {
  proposal_options?: ProposalOption[];
  template_id?: string | null;
  approved_option?: ApprovedOption;
  [field: string]: unknown;
}

/** Bodies `{event, data}` of every event in the spec's events list; `data` fields as the spec lists them. */
export const events = {
  projectCreated: (project: Project): WebhookBody => event('project.created', projectData(project)),

  projectUpdated: (project: Project, source: 'app' | 'web' | 'open_api' | null = 'web'): WebhookBody =>
    event('project.updated', { ...projectData(project), source }),

  /** `drawing` as ServiceSim.drawingView gives it. */
  drawingCreated: (drawing: DrawingView): WebhookBody => event('drawing.created', drawingData(drawing)),
  drawingUpdated: (drawing: DrawingView): WebhookBody => event('drawing.updated', drawingData(drawing)),

  /** Deprecated. */
  proposalSigned: (data: { project_id: string; name: string; url: string; drawing_id: string; drawing_version_id: string }): WebhookBody =>
    event('proposal.signed', { ...data }),

  /** Deprecated. */
  proposalSent: (proposal: Proposal, proposal_options: ProposalOption[] = []): WebhookBody =>
    event('proposal.sent', { ...proposalHead(proposal), proposal_options }),

  /** Deprecated; the approved option has no id. Defaults come from the proposal's approval fields. */
  proposalApproved: (
    proposal: Proposal,
    option: Partial<{ name: string; drawing_id: string; drawing_version_id: string; total: number; pdf_url: string }> = {},
  ): WebhookBody =>
    event('proposal.approved', {
      ...proposalHead(proposal),
      approved_option: withoutUndefined({
        name: proposal.name,
        drawing_id: proposal.approved_option?.drawing_id,
        drawing_version_id: proposal.approved_option?.drawing_version_id,
        total: proposal.total,
        pdf_url: proposal.pdf_url,
        ...option,
      }),
    }),

  /** Approval fields only when APPROVED, close_note only when VOID or LOST; `template_id` null unless given. */
  proposalStatusChanged: (proposal: Proposal, extra: StatusChangedExtra = {}): WebhookBody => {
    const approved = proposal.status === 'APPROVED';
    const closed = proposal.status === 'VOID' || proposal.status === 'LOST';
    return event('proposal.status_changed', {
      proposal_id: identifier(proposal.proposal_id),
      project_id: identifier(proposal.project_id),
      name: proposal.name,
      status: proposal.status,
      sales_representative: proposal.sales_representative,
      contact_email: proposal.contact_email,
      customer_name: proposal.customer_name,
      customer_email: proposal.customer_email,
      document_number: proposal.document_number,
      close_note: closed ? proposal.close_note : undefined,
      total: approved ? proposal.total : undefined,
      pdf_url: approved ? proposal.pdf_url : undefined,
      approved_option: approved ? proposal.approved_option : undefined,
      initial_proposal_id: proposal.initial_proposal_id,
      template_id: null,
      ...extra,
    });
  },

  proposalViewed: (proposal: Proposal, extra: { viewed_at?: string; template_id?: string } = {}): WebhookBody =>
    event('proposal.viewed', {
      proposal_id: identifier(proposal.proposal_id),
      project_id: identifier(proposal.project_id),
      name: proposal.name,
      viewed_at: extra.viewed_at ?? new Date().toISOString(),
      status: proposal.status,
      sales_representative: proposal.sales_representative,
      contact_email: proposal.contact_email,
      customer_name: proposal.customer_name,
      customer_email: proposal.customer_email,
      document_number: proposal.document_number,
      initial_proposal_id: proposal.initial_proposal_id,
      template_id: extra.template_id ?? '',
    }),

  /** `paid_amount` is written with two decimals (e.g. `120.50`), as the spec describes. */
  paymentReceived: (proposalId: string, drawingId: string, payment: Payment): WebhookBody =>
    event('proposal.payment.received', {
      proposal_id: proposalId,
      drawing_id: drawingId,
      paid_amount: bareNumber(payment.paid_amount.toFixed(2)),
      pay_channel: payment.pay_channel,
      paid_time: payment.pay_channel === 'service_payment' ? payment.paid_time : undefined,
      paid_date: payment.pay_channel === 'mark_as_paid' ? payment.paid_date : undefined,
      payment_method: payment.payment_method,
    }),
};

function drawingData(drawing: DrawingView): Record<string, unknown> {
  const { id, project_id, name, pdf_url, png_url, tags } = drawing;
  return { id, project_id, name, pdf_url, png_url, tags };
}

export interface PromptOptions {
  /** Wrap as `{event: 'export_prompt', data}` (the daemon accepts both). */
  wrapped?: boolean;
  event?: string;
}

/** The appointment CRM export-prompt webhook body: bare by default. */
export function appointmentPrompt(
  data: { project_id: string; drawing_id: string; appointment_id: string; yes_no: boolean },
  options: PromptOptions = {},
): Record<string, unknown> {
  return wrapPrompt({ ...data }, options);
}

/** The record CRM export-prompt webhook body; `shortNames` uses `module` / `record_id` instead of the long field names. */
export function recordPrompt(
  data: { drawing_id: string; record_crm_module: string; record_crm_record_id: string; yes_no: boolean; project_id?: string },
  options: PromptOptions & { shortNames?: boolean } = {},
): Record<string, unknown> {
  const { record_crm_module, record_crm_record_id, ...rest } = data;
  const payload = options.shortNames
    ? { ...rest, module: record_crm_module, record_id: record_crm_record_id }
    : { ...rest, record_crm_module, record_crm_record_id };
  return wrapPrompt(withoutUndefined(payload), options);
}

function wrapPrompt(data: Record<string, unknown>, options: PromptOptions): Record<string, unknown> {
  return options.wrapped ? { event: options.event ?? 'export_prompt', data } : data;
}
