import { Injectable } from '@nestjs/common';
import { MappingLookupService } from '../mappings/mapping-lookup.service.js';
import type { Mapping } from '../mappings/mapping.row.js';
import { DeliveryHandler, type DeliveryAction, type WebhookEventHandler } from '../actions/delivery-handler.js';
import {
  paymentAmountText,
  paymentFact,
  paymentReversalFact,
  paymentReversalText,
  type PaymentReceivedData,
  type PaymentReversedData,
  type RecordPromptData,
  type RoutedDelivery,
} from '../domain/service-events.js';
import { safeFileName } from '../http/file-names.js';
import type { AttachPdfPayload, PushQuotePayload, RecordNotePayload, UpdateDealPayload } from '../domain/actions.js';
import { centsText, toCents } from './revenue/money.js';
import { recordTarget, type RecordRef } from './record-crm.js';
import { RevenueSettingsService } from './revenue/revenue-settings.service.js';

/** What an approval tells the Deal and the Quote: the approved total, the approved drawing, and when it was learnt. */
interface Approval {
  projectId: string | null;
  proposalId: string;
  total: number | string | undefined;
  drawingId: string | undefined;
  drawingVersionId: string | undefined;
  at: Date;
}

/**
 * Which deliveries push what to Zoho: the record export prompt (a new attachment per delivery), approvals (the
 * signed PDF, once per proposal) and payments (a note, once per payment). Approvals and payments are keyed on the
 * fact, not the delivery, because reconciliation replays them as made-up deliveries.
 */
@Injectable()
@DeliveryHandler()
export class RecordDeliveriesService implements WebhookEventHandler {
  readonly name = 'record-crm';

  constructor(
    private readonly mappings: MappingLookupService,
    private readonly revenueSettings: RevenueSettingsService,
  ) {}

  async actionsFor(delivery: RoutedDelivery): Promise<DeliveryAction[]> {
    switch (delivery.event) {
      case 'record_crm.export_prompt': {
        const actions = await this.prompt(delivery.data, delivery.projectId ?? delivery.data.project_id ?? null, delivery.shortId);
        return [...actions, ...(await this.quoteOnPrompt(delivery.data, actions))];
      }
      case 'proposal.status_changed': {
        const { status, proposal_id, project_id, pdf_url, total, approved_option } = delivery.data;
        const projectId = delivery.projectId ?? project_id;
        if (status === 'LOST' || status === 'VOID') return this.dealLost(projectId, proposal_id, status);
        if (status !== 'APPROVED') return [];
        const approval: Approval = {
          projectId,
          proposalId: proposal_id,
          total,
          drawingId: approved_option?.drawing_id,
          drawingVersionId: approved_option?.drawing_version_id,
          at: delivery.receivedAt,
        };
        return [...(await this.approved(projectId, proposal_id, pdf_url)), ...(await this.revenueOnApproval(approval))];
      }
      case 'proposal.approved': {
        const { proposal_id, project_id, approved_option } = delivery.data;
        const projectId = delivery.projectId ?? project_id;
        const approval: Approval = {
          projectId,
          proposalId: proposal_id,
          total: approved_option?.total,
          drawingId: approved_option?.drawing_id,
          drawingVersionId: approved_option?.drawing_version_id,
          at: delivery.receivedAt,
        };
        return [...(await this.approved(projectId, proposal_id, approved_option?.pdf_url)), ...(await this.revenueOnApproval(approval))];
      }
      case 'proposal.payment.received':
        return this.payment(delivery.projectId, delivery.data);
      case 'reconcile.payment_reversed':
        return this.paymentReversed(delivery.data);
      default:
        return [];
    }
  }

  /** The prompt names its record itself; a project mapped to another record is a contradiction worth a failed entry. */
  private async prompt(data: RecordPromptData, projectId: string | null, shortId: string): Promise<DeliveryAction[]> {
    const record: RecordRef = { module: data.record_crm_module, recordId: data.record_crm_record_id };
    const base = { kind: 'attach_pdf' as const, crm: 'record' as const, projectId, target: recordTarget(record) };
    const payload: AttachPdfPayload = { ...record, drawingId: data.drawing_id, deliveryShortId: shortId };
    if (!data.yes_no) return [{ ...base, payload, status: 'skipped', detail: 'the user answered no to the push prompt' }];
    const mapping = projectId ? await this.mappings.recordOfProject(projectId) : null;
    if (mapping && (mapping.recordCrmModule !== record.module || mapping.recordCrmRecordId !== record.recordId)) {
      const error = `the prompt names record ${base.target}, but project ${projectId} is mapped to record ${mapping.recordCrmModule}/${mapping.recordCrmRecordId}`;
      return [{ ...base, payload, status: 'failed', error }];
    }
    return [{ ...base, payload }];
  }

  private async approved(projectId: string | null, proposalId: string, pdfUrl: string | undefined): Promise<DeliveryAction[]> {
    return this.forMappedProject(projectId, 'attach_pdf', (record, base) => {
      if (!pdfUrl) return { ...base, status: 'skipped', detail: `the approval of proposal ${proposalId} carries no pdf_url` };
      const payload: AttachPdfPayload = { ...record, pdfUrl, fileName: `proposal-${safeFileName(proposalId)}-signed.pdf`, proposalId };
      return { ...base, payload, dedupeKey: `record:approved:${proposalId}` };
    });
  }

  private async payment(projectId: string | null, data: PaymentReceivedData): Promise<DeliveryAction[]> {
    const amount = paymentAmountText(data.paid_amount);
    const date = data.paid_time ?? data.paid_date ?? '';
    return this.forMappedProject(projectId, 'add_note', (record, base) => {
      const payload: RecordNotePayload = {
        ...record,
        title: `Payment received: ${amount}`,
        content: [
          `Payment of ${amount} received for proposal ${data.proposal_id}.`,
          `Channel: ${data.pay_channel}`,
          `Method: ${data.payment_method}`,
          `Date: ${date}`,
        ].join('\n'),
        proposalId: data.proposal_id,
      };
      const dedupeKey = `record:payment:${paymentFact(data)}`;
      return { ...base, payload, dedupeKey };
    });
  }

  /** A returned or refunded payment: a note saying so, once per reversal. */
  private async paymentReversed(data: PaymentReversedData): Promise<DeliveryAction[]> {
    const { title, sentence } = paymentReversalText(data);
    return this.forMappedProject(data.project_id, 'add_note', (record, base) => {
      const payload: RecordNotePayload = {
        ...record,
        title,
        content: [sentence, `Channel: ${data.pay_channel}`, `Method: ${data.payment_method}`, `Date: ${data.paid_time ?? data.paid_date ?? ''}`].join('\n'),
        proposalId: data.proposal_id,
      };
      return { ...base, payload, dedupeKey: `record:payment-reversal:${paymentReversalFact(data)}` };
    });
  }

  // --- Revenue: the Deal follows the proposal; the drawing's line items become a Quote (when turned on). ---

  /**
   * An approval: the Deal's amount, stage and closing date (`update_deal`), once per proposal and total, so a
   * re-delivery or reconciliation's replay records nothing new while a change order (another proposal) does; and
   * with line items on, the approved drawing's Quote (`push_quote`), once per proposal.
   */
  private async revenueOnApproval(approval: Approval): Promise<DeliveryAction[]> {
    const settings = await this.revenueSettings.current();
    const amount = approval.total === undefined || approval.total === null ? undefined : centsText(toCents(approval.total));
    const deal = await this.forMappedProject(approval.projectId, 'update_deal', (record, base) => {
      if (record.module !== 'Deals') return null;
      const payload: UpdateDealPayload = {
        ...record,
        proposalId: approval.proposalId,
        status: 'APPROVED',
        amount,
        closingDate: isoDate(approval.at),
        approvedAt: approval.at.toISOString(),
      };
      return { ...base, payload, dedupeKey: `record:deal:${approval.proposalId}:APPROVED:${amount ?? ''}` };
    });
    if (!settings.quote_line_items || !approval.drawingId) return deal;
    const drawingId = approval.drawingId;
    const quote = await this.forMappedProject(approval.projectId, 'push_quote', (record, base) => {
      if (record.module !== 'Deals' && record.module !== 'Quotes') return null;
      const payload: PushQuotePayload = { ...record, drawingId, drawingVersionId: approval.drawingVersionId, proposalId: approval.proposalId };
      return { ...base, payload, dedupeKey: `record:quote:approved:${approval.proposalId}` };
    });
    return [...deal, ...quote];
  }

  /** LOST or VOID: the configured lost stage, when one is set, once per proposal and status. */
  private async dealLost(projectId: string | null, proposalId: string, status: 'LOST' | 'VOID'): Promise<DeliveryAction[]> {
    if (!(await this.revenueSettings.current()).deal_stage_on_lost) return [];
    return this.forMappedProject(projectId, 'update_deal', (record, base) => {
      if (record.module !== 'Deals') return null;
      const payload: UpdateDealPayload = { ...record, proposalId, status };
      return { ...base, payload, dedupeKey: `record:deal:${proposalId}:${status}` };
    });
  }

  /** The export prompt's yes, with line items on: the drawing's Quote, on the record the prompt's push goes to. */
  private async quoteOnPrompt(data: RecordPromptData, decided: DeliveryAction[]): Promise<DeliveryAction[]> {
    const push = decided.find((a) => a.kind === 'attach_pdf');
    if (!data.yes_no || !push || push.status === 'failed' || push.status === 'skipped') return [];
    if (data.record_crm_module !== 'Deals' && data.record_crm_module !== 'Quotes') return [];
    if (!(await this.revenueSettings.current()).quote_line_items) return [];
    const record: RecordRef = { module: data.record_crm_module, recordId: data.record_crm_record_id };
    const payload: PushQuotePayload = { ...record, drawingId: data.drawing_id };
    return [{ kind: 'push_quote', crm: 'record', projectId: push.projectId, target: recordTarget(record), payload }];
  }

  /** Pushes go to a pending or associated record mapping; a failed one gets a skipped entry saying so; none, nothing. */
  private async forMappedProject<K extends 'attach_pdf' | 'add_note' | 'update_deal' | 'push_quote'>(
    projectId: string | null,
    kind: K,
    build: (record: RecordRef, base: { kind: K; crm: 'record'; projectId: string | null; target: string }) => DeliveryAction | null,
  ): Promise<DeliveryAction[]> {
    const mapping = projectId ? await this.mappings.recordOfProject(projectId) : null;
    if (!mapping || !mapping.recordCrmModule || !mapping.recordCrmRecordId) return [];
    const record: RecordRef = { module: mapping.recordCrmModule, recordId: mapping.recordCrmRecordId };
    const base = { kind, crm: 'record' as const, projectId, target: recordTarget(record) };
    const built = build(record, base);
    if (!built) return [];
    if (mapping.status === 'failed') return [{ ...(base as DeliveryAction), status: 'skipped', detail: failedMappingDetail(mapping) }];
    return [built];
  }
}

/** A date as Zoho's date fields take it: `YYYY-MM-DD`, in UTC. */
function isoDate(at: Date): string {
  return at.toISOString().slice(0, 10);
}

function failedMappingDetail(mapping: Mapping): string {
  return `not pushed: the project's record mapping failed${mapping.error ? ` (${mapping.error})` : ''}`;
}
