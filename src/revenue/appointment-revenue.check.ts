import { Inject, Injectable } from '@nestjs/common';
import { APPOINTMENT_CRM, AppointmentNotFoundError, type Appointment, type AppointmentCrm, type AppointmentFile } from '../appointment-crm/appointment-crm.js';
import { centsText, toCents } from '../record-crm/revenue/money.js';
import { ServiceApiClient } from '../service-api/service-api.client.js';
import { SyncLogRepository } from '../sync-log/sync-log.repository.js';
import { CallBudget, type SourceOutcome } from './call-budget.js';
import { CheckPositionRepository } from './check-position.repository.js';
import { lastChangeIsOurs, type DriftKind, type Finding, type RecordCheck } from './drift.js';
import { lastWriteOf, subjectsOf, text, type Subject } from './revenue-facts.js';

const KINDS = ['push_proposal_pdf', 'push_line_items', 'set_status', 'push_drawings'];
const SOLD = 'Sold';
const PAGE = 500;
/** An appointment is read (request 1) and its files listed (request 2): at least two calls, on every adapter. */
const FEWEST_PER_RECORD = 2;

/**
 * The appointment CRM's side of the revenue check (docs/operations.md, "Revenue that stays right"): for each
 * appointment with an approval, the sale's total and items against the approved drawing's line items (D2 at its
 * version), the status Sold, the proposal file present. A changes pass reads the appointments changed since the last
 * one (request 8, `updated_since`: their `updated_at` moves with the sale, the files and the status), those whose sale,
 * sale items or files changed or were deleted since where the adapter keeps them apart (Salesforce: three QueryAll
 * calls), and those crm-sync wrote to since; a full pass reads every one. The budget spends the calls the CRM received
 * (the pass's call meter).
 */
@Injectable()
export class AppointmentRevenueCheck {
  constructor(
    @Inject(APPOINTMENT_CRM) private readonly crm: AppointmentCrm,
    private readonly service: ServiceApiClient,
    private readonly syncLog: SyncLogRepository,
    private readonly positions: CheckPositionRepository,
  ) {}

  async changes(budget: CallBudget, startedAt: Date, settle: (checks: RecordCheck[]) => Promise<void>): Promise<SourceOutcome> {
    const position = await this.positions.get('changes:appointment');
    const changed = new Map<string, Appointment>();
    let cursor: string | null = null;
    let stopped = false;
    let resumeAt: Date | null = null;
    do {
      if (!budget.fits(1)) {
        stopped = true;
        resumeAt = position.since;
        break;
      }
      const page = await this.crm.listChangedAppointments(position.since, cursor, PAGE);
      for (const item of page.items) changed.set(item.id, item as unknown as Appointment);
      cursor = page.next_cursor;
    } while (cursor);
    const touched = position.since ? await this.syncLog.targetsTouchedSince('appointment', KINDS, position.since) : [];
    // An adapter whose appointment stamp does not move with its sale and files (Salesforce: records of their own, a
    // deleted one read through QueryAll). Without room for its fewest calls the pass stops and the next one reads the
    // same changes. The REST interface has none, and makes no call.
    let salesChanged: string[] = [];
    if (position.since && this.crm.appointmentsWithSaleOrFilesChangedSince && !stopped) {
      const listed = await this.crm.appointmentsWithSaleOrFilesChangedSince(position.since, (calls) => budget.fits(calls));
      if (listed === null) {
        stopped = true;
        resumeAt = position.since;
      } else if (listed) {
        salesChanged = listed;
      }
    }
    const targets = [...new Set([...changed.keys(), ...touched, ...salesChanged])];
    const changeOf = (s: Subject) => String(changed.get(s.target)?.updated_at ?? '');
    // In the listing's order (oldest change first; what crm-sync wrote to, unlisted, before): a pass stopped at the
    // budget resumes from the first change it did not read.
    const subjects = subjectsOf(await this.syncLog.revenueFacts('appointment', KINDS, position.since ? targets : null, true)).sort((a, b) =>
      changeOf(a) < changeOf(b) ? -1 : changeOf(a) > changeOf(b) ? 1 : 0,
    );
    let checked = 0;
    const checks: RecordCheck[] = [];
    for (const subject of subjects) {
      if (!budget.fitsRecord(FEWEST_PER_RECORD)) {
        stopped = true;
        const listed = changed.get(subject.target);
        resumeAt = listed && typeof listed.updated_at === 'string' ? new Date(listed.updated_at) : position.since;
        break;
      }
      checks.push(await budget.record(() => this.check(subject)));
      checked++;
    }
    await settle(checks);
    // Stopped at the budget: the next pass starts from the first change not read (the listing is oldest first);
    // `updated_since` is inclusive to the millisecond, so the next pass starts where this one did.
    const since = stopped ? resumeAt : startedAt;
    await this.positions.save('changes:appointment', { since, afterKey: null });
    return { checked, calls: budget.spent, stopped };
  }

  async full(budget: CallBudget, settle: (checks: RecordCheck[]) => Promise<void>): Promise<SourceOutcome> {
    const position = await this.positions.get('full:appointment');
    const subjects = subjectsOf(await this.syncLog.revenueFacts('appointment', KINDS, null, true)).filter(
      (s) => !position.afterKey || s.target > position.afterKey,
    );
    let checked = 0;
    let stopped = false;
    let after: string | null = null;
    const checks: RecordCheck[] = [];
    for (const subject of subjects) {
      if (!budget.fitsRecord(FEWEST_PER_RECORD)) {
        stopped = true;
        break;
      }
      checks.push(await budget.record(() => this.check(subject)));
      after = subject.target;
      checked++;
      if (checks.length >= 100) await settle(checks.splice(0));
    }
    await settle(checks);
    await this.positions.save('full:appointment', { since: null, afterKey: stopped ? (after ?? position.afterKey) : null });
    return { checked, calls: budget.spent, stopped };
  }

  /**
   * One appointment against its approval: the appointment and its files, the sale where it is read on its own
   * (Salesforce), a missing file's delete where the CRM keeps it apart; one call to the service (D2) when it has a sale
   * to compare. The pass's meter counts the CRM's calls as they are sent.
   */
  async check(subject: Subject): Promise<RecordCheck> {
    const approval = subject.approval.payload;
    const proposalId = subject.approval.proposalId ?? text(approval.proposal_id) ?? '';
    const amount = text(approval.amount);
    const drawingId = text(approval.drawing_id);
    const checked: DriftKind[] = ['status'];
    const findings: Finding[] = [];
    let appointment: Appointment;
    let files: AppointmentFile[];
    try {
      appointment = await this.crm.getAppointment(subject.target);
      files = await this.crm.listFiles(subject.target);
    } catch (err) {
      if (!(err instanceof AppointmentNotFoundError)) throw err;
      return { crm: 'appointment', target: subject.target, checked: [], findings: [] };
    }
    const link = text(appointment.web_url);
    const by = personOf(appointment.updated_by);
    const at = dateOf(appointment.updated_at);
    const base = { crm: 'appointment' as const, target: subject.target, projectId: subject.projectId, proposalId, link, approvalEntryId: subject.approval.id };
    const lastOurs = lastWriteOf(subject, KINDS);
    // The CRM's own word on who made a change (Salesforce's LastModifiedById), then its time against crm-sync's write.
    const ours = (at: Date | null, writtenAt: Date | null, byUs: unknown) => byUs !== false && lastChangeIsOurs(at, writtenAt);
    // Something crm-sync wrote and is gone was removed by someone, whatever the appointment's stamp says (a later
    // write of crm-sync's moves it past the removal); only what crm-sync never managed to write is its own to heal.
    const goneIsOurs = (written: unknown) => !written && ours(at, lastOurs, appointment.updated_by_crm_sync);

    // Sold as the CRM in use writes it (an improveit 360 org's own result value).
    const sold = (await this.crm.soldStatus?.()) ?? SOLD;
    if (appointment.status !== sold) {
      const written = subject.written.get('set_status');
      findings.push({
        ...base,
        kind: 'status',
        serviceValue: sold,
        writtenValue: written ? sold : null,
        writtenEntryId: written?.id ?? null,
        crmValue: text(appointment.status),
        changedBy: by,
        changedAt: at,
        byCrmSync: ours(at, lastOurs, appointment.updated_by_crm_sync),
      });
    }

    if (text(approval.pdf_url)) {
      checked.push('file_missing');
      if (!files.some((f) => f.category === 'proposal')) {
        const written = subject.written.get('push_proposal_pdf');
        // Where the appointment's stamp does not move with its files (Salesforce), the file's own delete says who and
        // when; a removal the CRM cannot attribute is no one's known change, so never crm-sync's (no auto-heal).
        const removal = this.crm.fileRemoval ? await this.crm.fileRemoval(subject.target, 'proposal') : undefined;
        const removedAt = removal === undefined ? at : dateOf(removal?.updated_at);
        findings.push({
          ...base,
          kind: 'file_missing',
          serviceValue: `the signed proposal ${proposalId}`,
          writtenValue: written ? 'proposal file uploaded' : null,
          writtenEntryId: written?.id ?? null,
          crmValue: 'no proposal file',
          changedBy: removal === undefined ? by : personOf(removal?.updated_by),
          changedAt: removedAt,
          byCrmSync: removal === undefined ? goneIsOurs(written) : removal !== null && ours(removedAt, lastOurs, removal.updated_by_crm_sync),
        });
      }
    }

    if (drawingId) {
      checked.push('sale_missing', 'sale_items');
      const held = this.crm.readSale ? await this.crm.readSale(subject.target) : undefined;
      // A sale deleted where the appointment's stamp does not move with it (Salesforce): its delete says who and when.
      const deleted = held && 'deleted' in held ? held : null;
      const sale = held === undefined ? saleOf(appointment.sale) : deleted ? null : (held as SaleShape | null);
      const written = subject.written.get('push_line_items');
      const writtenSale = written ? `total ${centsOrText(amount ?? written.payload.amount)}` : null;
      if (!sale) {
        const deletedAt = deleted ? dateOf(deleted.updated_at) : at;
        findings.push({
          ...base,
          kind: 'sale_missing',
          serviceValue: amount === null ? 'a sale' : `total ${centsOrText(amount)}`,
          writtenValue: writtenSale,
          writtenEntryId: written?.id ?? null,
          crmValue: null,
          changedBy: deleted ? personOf(deleted.updated_by) : by,
          changedAt: deletedAt,
          byCrmSync: deleted ? ours(deletedAt, lastOurs, deleted.updated_by_crm_sync) : goneIsOurs(written),
        });
      } else {
        const lineItems = await this.service.getLineItems(drawingId, text(approval.drawing_version_id) ?? undefined);
        // Item totals are compared where the CRM keeps them (an improveit 360 sale item may have no total field).
        const itemTotals = sale.items.every((i) => i.total !== null && i.total !== undefined);
        const meant = saleText(lineItems, itemTotals);
        const shown = saleText(sale, itemTotals);
        if (meant !== shown) {
          const saleAt = dateOf(sale.updated_at) ?? at;
          findings.push({
            ...base,
            kind: 'sale_items',
            serviceValue: meant,
            writtenValue: written ? meant : null,
            writtenEntryId: written?.id ?? null,
            crmValue: shown,
            changedBy: personOf(sale.updated_by) ?? by,
            changedAt: saleAt,
            byCrmSync: ours(saleAt, written?.finishedAt ?? null, (sale as { updated_by_crm_sync?: unknown }).updated_by_crm_sync),
          });
        }
      }
    }
    return { crm: 'appointment', target: subject.target, checked, findings };
  }
}

interface SaleShape {
  items: Array<{ name?: unknown; quantity?: unknown; total?: unknown }>;
  total: unknown;
  updated_at?: unknown;
  updated_by?: unknown;
}

function saleOf(value: unknown): SaleShape | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const sale = value as Record<string, unknown>;
  return Array.isArray(sale.items) ? (sale as unknown as SaleShape) : null;
}

/** A sale (or D2's line items) as one line: its total and each item's name, quantity and (when kept) total, in order. */
function saleText(sale: { items?: unknown; line_items?: unknown; total: unknown }, itemTotals: boolean): string {
  const items = (Array.isArray(sale.line_items) ? sale.line_items : Array.isArray(sale.items) ? sale.items : []) as Array<Record<string, unknown>>;
  const rows = items.map((i) => `${String(i.name)} × ${String(i.quantity)}${itemTotals ? ` = ${centsOrText(i.total)}` : ''}`);
  return `total ${centsOrText(sale.total)}; ${items.length} item(s): ${rows.join('; ')}`;
}

function centsOrText(value: unknown): string {
  return typeof value === 'number' || (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) ? centsText(toCents(value)) : String(value);
}

/** `updated_by` as the contract gives it: a name, or an object with one. */
function personOf(value: unknown): string | null {
  if (typeof value === 'string' && value !== '') return value;
  if (value && typeof value === 'object' && typeof (value as { name?: unknown }).name === 'string') return (value as { name: string }).name;
  return null;
}

function dateOf(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? null : at;
}
