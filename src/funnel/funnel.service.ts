import { Injectable } from '@nestjs/common';
import { AutomationReadsRepository } from '../automations/automation-reads.repository.js';
import { MappingRepository } from '../mappings/mapping.repository.js';
import { centsText, toCents } from '../record-crm/revenue/money.js';
import { RevenueSummaryService, type RevenueAgreement } from '../revenue/revenue-summary.service.js';
import { SyncLogRepository, type FunnelRow } from '../sync-log/sync-log.repository.js';
import { FUNNEL_CRMS, FUNNEL_WINDOWS, type FunnelCrm, type FunnelWindow } from './funnel.dto.js';
import type { FunnelCrmView, FunnelDayView, FunnelPartView, FunnelStepName, FunnelStepView, FunnelView } from './funnel.view.js';

const CRM_NAMES: Record<FunnelCrm, string> = { appointment: 'Appointment CRM', record: 'Zoho CRM' };
const DAY_MS = 24 * 3600_000;

/**
 * The funnel (docs/operations.md, "The funnel"): per CRM, how far the records read went, from what the daemon stored
 * (the sync log, the mappings, the reads' hourly counts): never a call to a CRM.
 */
@Injectable()
export class FunnelService {
  constructor(
    private readonly syncLog: SyncLogRepository,
    private readonly mappings: MappingRepository,
    private readonly reads: AutomationReadsRepository,
    private readonly revenue: RevenueSummaryService,
  ) {}

  async funnel(window: FunnelWindow, only: FunnelCrm | null, now = new Date()): Promise<FunnelView> {
    const since = new Date(now.getTime() - FUNNEL_WINDOWS[window]);
    const [rows, mapped, reads, days, agreement] = await Promise.all([
      this.syncLog.funnelSince(since, only),
      this.mappings.countCreatedSince(since),
      this.reads.countsSince(since),
      this.syncLog.approvedPerDaySince(since, only),
      this.revenue.agreement(only, since),
    ]);
    const crms = (only ? [only] : [...FUNNEL_CRMS]).map((crm) =>
      crmFunnel(
        crm,
        since,
        rows.find((r) => r.crm === crm) ?? emptyRow(crm),
        mapped.find((m) => m.crm === crm),
        reads.find((r) => r.crm === crm),
        agreement.find((a) => a.crm === crm),
      ),
    );
    return { window, since: since.toISOString(), crms, approved_per_day: perDay(since, now, days) };
  }
}

function crmFunnel(
  crm: FunnelCrm,
  since: Date,
  row: FunnelRow,
  mapped: { mapped: number; associated: number } | undefined,
  read: { recordsRead: number; qualifying: number } | undefined,
  agreement: RevenueAgreement | undefined,
): FunnelCrmView {
  const logs = (filter: Record<string, string>) => `/api/sync-logs?${new URLSearchParams({ crm, ...filter, since: since.toISOString() })}`;
  const part = (label: string, count: number, amount: string | null, link: string): FunnelPartView => ({ label, count, amount, link });
  const step = (name: FunnelStepName, p: FunnelPartView, parts: FunnelPartView[] = []): FunnelStepView => ({ step: name, ...p, parts });
  const records = crm === 'appointment' ? 'Appointments' : 'Records';
  const steps: FunnelStepView[] = [
    step('read', part(`${records} read`, read?.recordsRead ?? 0, null, `/api/automations`)),
    step('qualifying', part('Qualifying', read?.qualifying ?? 0, null, `/api/automations`)),
    step('projects_created', part('Projects created', row.created, null, logs({ kind: 'create_project', status: 'succeeded' }))),
    step('mapped', part('Mapped', mapped?.mapped ?? 0, null, `/api/mappings?crm=${crm}`), [
      part('Associated', mapped?.associated ?? 0, null, `/api/mappings?crm=${crm}&status=associated`),
    ]),
  ];
  if (crm === 'appointment')
    steps.push(step('drawings_pushed', part('Drawings pushed', row.drawingsPushed, null, logs({ kind: 'push_drawings', status: 'succeeded' }))));
  const exportKind = crm === 'appointment' ? 'push_proposal_pdf' : 'attach_pdf';
  steps.push(step('proposals_exported', part('Proposals exported', row.exported, null, logs({ kind: exportKind, status: 'succeeded' }))));
  steps.push(step('approved', part('Approved', row.approved, row.approvedAmount, logs({ kind: crm === 'appointment' ? 'push_proposal_pdf' : 'update_deal' }))));
  if (crm === 'appointment') {
    const sale = part('Sale written', row.sales, row.salesAmount, logs({ kind: 'push_line_items', status: 'succeeded' }));
    steps.push(
      step('written', { ...sale, label: 'Written to the CRM' }, [sale, part('Status Sold', row.sold, null, logs({ kind: 'set_status', status: 'succeeded' }))]),
    );
  } else {
    const deal = part('Deal amount written', row.deals, row.dealsAmount, logs({ kind: 'update_deal', status: 'succeeded' }));
    steps.push(
      step('written', { ...deal, label: 'Written to the CRM' }, [
        deal,
        part('Quote written', row.quotes, null, logs({ kind: 'push_quote', status: 'succeeded' })),
      ]),
    );
  }
  // What the CRM still holds as the service approved it: the window's approvals without an open revenue drift.
  steps.push(
    step('in_agreement', part('In agreement', agreement?.inAgreement ?? 0, agreement?.inAgreementAmount ?? null, `/api/revenue/drifts?crm=${crm}&state=open`), [
      part('Drifted', agreement?.drifted ?? 0, agreement?.driftedAmount ?? null, `/api/revenue/drifts?crm=${crm}&state=open`),
    ]),
  );
  steps.push(step('failed', part('Failed', row.failed, null, logs({ status: 'failed' }))));
  steps.push(step('waiting', part('Waiting', row.waiting, null, logs({ status: 'queued' }))));
  return { crm, name: CRM_NAMES[crm], steps };
}

function emptyRow(crm: FunnelCrm): FunnelRow {
  return {
    crm,
    qualifiedEntries: 0,
    created: 0,
    drawingsPushed: 0,
    exported: 0,
    approved: 0,
    approvedAmount: null,
    sales: 0,
    salesAmount: null,
    sold: 0,
    deals: 0,
    dealsAmount: null,
    quotes: 0,
    failed: 0,
    waiting: 0,
  };
}

/** Every UTC day from the one `since` falls in to today's, with both CRMs' approvals added up. */
function perDay(since: Date, now: Date, rows: Array<{ day: string; approved: number; amount: string | null }>): FunnelDayView[] {
  const days: FunnelDayView[] = [];
  for (let t = Date.UTC(since.getUTCFullYear(), since.getUTCMonth(), since.getUTCDate()); t <= now.getTime(); t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    const those = rows.filter((r) => r.day === day);
    const cents = those.reduce((sum, r) => sum + (r.amount === null ? 0n : toCents(r.amount)), 0n);
    days.push({ day, approved: those.reduce((n, r) => n + r.approved, 0), amount: those.length ? centsText(cents) : '0' });
  }
  return days;
}
