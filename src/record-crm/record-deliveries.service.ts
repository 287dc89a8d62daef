import { Injectable } from '@nestjs/common';
import { MappingLookupService } from '../mappings/mapping-lookup.service.js';
import type { Mapping } from '../mappings/mapping.entity.js';
import { DeliveryHandler, type DeliveryAction, type WebhookEventHandler } from '../sync-log/delivery-handler.js';
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
import type { AttachPdfPayload, RecordNotePayload } from '../domain/actions.js';
import { recordTarget, type RecordRef } from './record-crm.js';

/**
 * Which deliveries push what to Zoho: the record export prompt (a new attachment per delivery), approvals (the
 * signed PDF, once per proposal) and payments (a note, once per payment). Approvals and payments are keyed on the
 * fact, not the delivery, because reconciliation replays them as made-up deliveries.
 */
@Injectable()
@DeliveryHandler()
export class RecordDeliveriesService implements WebhookEventHandler {
  readonly name = 'record-crm';

  constructor(private readonly mappings: MappingLookupService) {}

  async actionsFor(delivery: RoutedDelivery): Promise<DeliveryAction[]> {
    switch (delivery.event) {
      case 'record_crm.export_prompt':
        return this.prompt(delivery.data, delivery.projectId ?? delivery.data.project_id ?? null, delivery.shortId);
      case 'proposal.status_changed': {
        const { status, proposal_id, project_id, pdf_url } = delivery.data;
        return status === 'APPROVED' ? this.approved(delivery.projectId ?? project_id, proposal_id, pdf_url) : [];
      }
      case 'proposal.approved': {
        const { proposal_id, project_id, approved_option } = delivery.data;
        return this.approved(delivery.projectId ?? project_id, proposal_id, approved_option?.pdf_url);
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

  /** Pushes go to a pending or associated record mapping; a failed one gets a skipped entry saying so; none, nothing. */
  private async forMappedProject<K extends 'attach_pdf' | 'add_note'>(
    projectId: string | null,
    kind: K,
    build: (record: RecordRef, base: { kind: K; crm: 'record'; projectId: string | null; target: string }) => DeliveryAction,
  ): Promise<DeliveryAction[]> {
    const mapping = projectId ? await this.mappings.recordOfProject(projectId) : null;
    if (!mapping || !mapping.recordCrmModule || !mapping.recordCrmRecordId) return [];
    const record: RecordRef = { module: mapping.recordCrmModule, recordId: mapping.recordCrmRecordId };
    const base = { kind, crm: 'record' as const, projectId, target: recordTarget(record) };
    if (mapping.status === 'failed') return [{ ...(base as DeliveryAction), status: 'skipped', detail: failedMappingDetail(mapping) }];
    return [build(record, base)];
  }
}

function failedMappingDetail(mapping: Mapping): string {
  return `not pushed: the project's record mapping failed${mapping.error ? ` (${mapping.error})` : ''}`;
}
