import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { MappingLookupService } from '../mappings/mapping-lookup.service.js';
import type { Mapping } from '../mappings/mapping.row.js';
import { DeliveryHandler, type DeliveryAction, type WebhookEventHandler } from '../actions/delivery-handler.js';
import type {
  AppointmentPromptData,
  PaymentReceivedData,
  PaymentReversedData,
  ProposalApprovedData,
  ProposalStatusChangedData,
  RoutedDelivery,
} from '../domain/service-events.js';
import { paymentFact, paymentReversalFact, paymentReversalText } from '../domain/service-events.js';
import type { ActionKind, LineItemsPayload, ProposalPdfPayload } from '../domain/actions.js';
import { AppointmentActionsService } from './appointment-actions.service.js';
import { SelectedAppointmentCrm } from './selected-appointment-crm.js';
import { paymentNote } from './sale.js';

interface Approval {
  proposalId: string;
  /** The approved total as the service sent it (decimal text): kept on the approval's chain for the funnel (docs/operations.md). */
  amount?: string;
  pdfUrl?: string;
  drawingId?: string;
  drawingVersionId?: string;
}

/** Turns the service's deliveries into appointment CRM actions, for projects mapped to an appointment. */
@Injectable()
@DeliveryHandler()
export class AppointmentDeliveriesService implements WebhookEventHandler {
  readonly name = 'appointment-crm';

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly mappings: MappingLookupService,
    private readonly pushes: AppointmentActionsService,
    private readonly selected: SelectedAppointmentCrm,
  ) {}

  async actionsFor(delivery: RoutedDelivery): Promise<DeliveryAction[]> {
    if ((await this.selected.pushesBy()) === 'service') return this.checksFor(delivery);
    switch (delivery.event) {
      case 'drawing.created':
      case 'drawing.updated':
        return this.drawingsChanged(delivery.data.project_id, delivery.trigger);
      case 'appointment_crm.export_prompt':
        return this.exportPrompt(delivery.data, delivery.trigger);
      case 'proposal.status_changed':
        return this.statusChanged(delivery.data, delivery.trigger);
      case 'proposal.approved':
        return this.approved(delivery.data.project_id, approvalOf(delivery.data), delivery.trigger);
      case 'proposal.payment.received':
        return delivery.projectId ? this.paymentReceived(delivery.projectId, delivery.data, delivery.trigger) : [];
      case 'reconcile.payment_reversed':
        return this.paymentReversed(delivery.data, delivery.trigger);
      default:
        return [];
    }
  }

  /**
   * The service pushes to the org itself: crm-sync pushes no files, sales or Sold, and checks, a set time later, that
   * the service's push arrived (a drawing's PDF; an export-prompt yes's proposal file and Sold). Payment notes are
   * crm-sync's own and still added.
   */
  private async checksFor(delivery: RoutedDelivery): Promise<DeliveryAction[]> {
    // Files the service made a little before the delivery reached crm-sync still count: the clocks differ.
    const since = new Date(delivery.receivedAt.getTime() - 120_000).toISOString();
    const check = (projectId: string, appointmentId: string, expect: 'drawing' | 'proposal', drawingId: string | undefined): DeliveryAction => ({
      ...base('check_service_push', projectId, appointmentId),
      payload: { expect, since, ...(drawingId ? { drawing_id: drawingId } : {}) },
      delayMs: this.config.salesforce.pushCheckMs,
    });
    switch (delivery.event) {
      case 'drawing.created':
      case 'drawing.updated': {
        const data = delivery.data;
        // A drawing without a PDF yet has nothing to push; events of one drawing within the wait are one check.
        if (delivery.trigger === 'reconcile' || !data.pdf_url) return [];
        return this.forMapping(data.project_id, 'check_service_push', delivery.trigger, (appointmentId) => [
          { ...check(data.project_id, appointmentId, 'drawing', data.id), coalesceKey: `check_service_push:${appointmentId}:drawing:${data.id}` },
        ]);
      }
      case 'appointment_crm.export_prompt': {
        const data = delivery.data;
        if (!data.yes_no) return [];
        return this.forMapping(data.project_id, 'check_service_push', delivery.trigger, (appointmentId) =>
          data.appointment_id === appointmentId ? [check(data.project_id, appointmentId, 'proposal', data.drawing_id)] : [],
        );
      }
      case 'proposal.payment.received':
        return delivery.projectId ? this.paymentReceived(delivery.projectId, delivery.data, delivery.trigger) : [];
      case 'reconcile.payment_reversed':
        return this.paymentReversed(delivery.data, delivery.trigger);
      default:
        return [];
    }
  }

  /** A drawing push when the drawings or their versions differ from what the appointment last received. */
  async reconcileProject(projectId: string): Promise<DeliveryAction[]> {
    if ((await this.selected.pushesBy()) === 'service') return [];
    const mapping = await this.mappings.appointmentOfProject(projectId);
    if (!mapping || mapping.status === 'failed' || !mapping.appointmentId) return [];
    const current = await this.pushes.currentDrawings(projectId);
    const pushed = new Map((await this.pushes.pushedDrawings(mapping.appointmentId)).map((p) => [p.drawingId, p.drawingVersionId]));
    const same = current.length === pushed.size && current.every((d) => pushed.get(d.drawingId) === d.versionId);
    if (same || current.length === 0) return [];
    return [this.drawingsAction(mapping.appointmentId, projectId)];
  }

  private async drawingsChanged(projectId: string, trigger: RoutedDelivery['trigger']): Promise<DeliveryAction[]> {
    return this.forMapping(projectId, 'push_drawings', trigger, (appointmentId) => [this.drawingsAction(appointmentId, projectId)]);
  }

  private drawingsAction(appointmentId: string, projectId: string): DeliveryAction {
    // A burst of drawing events for one project joins the push still waiting, which then reads every drawing.
    return {
      ...base('push_drawings', projectId, appointmentId),
      coalesceKey: `push_drawings:${appointmentId}`,
      delayMs: this.config.jobs.drawingsCoalesceMs,
    };
  }

  private async exportPrompt(data: AppointmentPromptData, trigger: RoutedDelivery['trigger']): Promise<DeliveryAction[]> {
    return this.forMapping(data.project_id, 'push_proposal_pdf', trigger, (appointmentId) => {
      if (data.appointment_id !== appointmentId) {
        return [
          {
            ...base('push_proposal_pdf', data.project_id, data.appointment_id),
            status: 'failed',
            error:
              `export prompt names appointment ${data.appointment_id}, but project ${data.project_id} is mapped to ` +
              `appointment ${appointmentId}; nothing pushed`,
          },
        ];
      }
      if (!data.yes_no) {
        return [
          {
            ...base('push_proposal_pdf', data.project_id, appointmentId),
            status: 'skipped',
            detail: `the user answered no to the export prompt for drawing ${data.drawing_id}; nothing pushed`,
          },
        ];
      }
      const payload: ProposalPdfPayload = { drawing_id: data.drawing_id };
      return [{ ...base('push_proposal_pdf', data.project_id, appointmentId), payload: { ...payload } }];
    });
  }

  private async statusChanged(data: ProposalStatusChangedData, trigger: RoutedDelivery['trigger']): Promise<DeliveryAction[]> {
    if (data.status === 'APPROVED') return this.approved(data.project_id, approvalOf(data), trigger);
    return this.forMapping(data.project_id, 'push_proposal_pdf', trigger, (appointmentId) => [
      {
        ...base('push_proposal_pdf', data.project_id, appointmentId),
        status: 'skipped',
        detail: `proposal ${data.proposal_id} is now ${data.status}; only an approval is pushed`,
      },
    ]);
  }

  /** Signed PDF, then the approved drawing's sale, then Sold: once per approved proposal, however often it is told. */
  private async approved(projectId: string, approval: Approval, trigger: RoutedDelivery['trigger']): Promise<DeliveryAction[]> {
    return this.forMapping(projectId, 'push_proposal_pdf', trigger, (appointmentId) => {
      const dedupeKey = `appointment:approved:${approval.proposalId}`;
      if (approval.pdfUrl) {
        const payload: ProposalPdfPayload = {
          pdf_url: approval.pdfUrl,
          proposal_id: approval.proposalId,
          drawing_id: approval.drawingId,
          drawing_version_id: approval.drawingVersionId,
          amount: approval.amount,
        };
        return [{ ...base('push_proposal_pdf', projectId, appointmentId), payload: withoutUndefined(payload), dedupeKey }];
      }
      if (approval.drawingId) {
        const payload: LineItemsPayload = { drawing_id: approval.drawingId, drawing_version_id: approval.drawingVersionId, amount: approval.amount };
        return [{ ...base('push_line_items', projectId, appointmentId), payload: withoutUndefined(payload), dedupeKey }];
      }
      return [{ ...base('set_status', projectId, appointmentId), payload: withoutUndefined({ status: 'Sold', amount: approval.amount }), dedupeKey }];
    });
  }

  private async paymentReceived(projectId: string, data: PaymentReceivedData, trigger: RoutedDelivery['trigger']): Promise<DeliveryAction[]> {
    return this.forMapping(projectId, 'add_note', trigger, (appointmentId) => {
      return [
        {
          ...base('add_note', projectId, appointmentId),
          payload: { text: paymentNote(data), proposal_id: data.proposal_id },
          dedupeKey: `appointment:payment:${paymentFact(data)}`,
        },
      ];
    });
  }

  /** A returned or refunded payment: a note saying so, once per reversal (the payment's own note stays). */
  private async paymentReversed(data: PaymentReversedData, trigger: RoutedDelivery['trigger']): Promise<DeliveryAction[]> {
    const date = data.paid_time ?? data.paid_date ?? 'date not given';
    const { title, sentence } = paymentReversalText(data);
    return this.forMapping(data.project_id, 'add_note', trigger, (appointmentId) => [
      {
        ...base('add_note', data.project_id, appointmentId),
        payload: { text: `${title}. ${sentence} Channel: ${data.pay_channel}; method: ${data.payment_method}; paid: ${date}`, proposal_id: data.proposal_id },
        dedupeKey: `appointment:payment-reversal:${paymentReversalFact(data)}`,
      },
    ]);
  }

  /**
   * Pushes go to pending and associated mappings. A failed mapping gets a `skipped` entry that says why (not on
   * reconciliation, which would repeat it every run); an unmapped project is none of this module's business.
   */
  private async forMapping(
    projectId: string,
    kind: ActionKind,
    trigger: RoutedDelivery['trigger'],
    actions: (appointmentId: string) => DeliveryAction[],
  ): Promise<DeliveryAction[]> {
    const mapping: Mapping | null = await this.mappings.appointmentOfProject(projectId);
    if (!mapping?.appointmentId) return [];
    if (mapping.status === 'failed') {
      if (trigger === 'reconcile') return [];
      return [
        {
          ...(base(kind, projectId, mapping.appointmentId) as DeliveryAction),
          status: 'skipped',
          detail: `the mapping of project ${projectId} to appointment ${mapping.appointmentId} failed (${mapping.error ?? 'no reason'}); nothing pushed`,
        },
      ];
    }
    return actions(mapping.appointmentId);
  }
}

function base<K extends ActionKind>(kind: K, projectId: string, appointmentId: string) {
  return { kind, crm: 'appointment' as const, projectId, target: appointmentId };
}

function approvalOf(data: ProposalStatusChangedData | ProposalApprovedData): Approval {
  const option = data.approved_option as { drawing_id?: string; drawing_version_id?: string; pdf_url?: string; total?: number | string } | undefined;
  const total = ('total' in data ? data.total : undefined) ?? option?.total;
  return {
    proposalId: data.proposal_id,
    amount: total === undefined || total === null ? undefined : String(total),
    pdfUrl: ('pdf_url' in data && data.pdf_url) || option?.pdf_url || undefined,
    drawingId: option?.drawing_id || undefined,
    drawingVersionId: option?.drawing_version_id || undefined,
  };
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
