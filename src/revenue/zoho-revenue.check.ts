import { Inject, Injectable } from '@nestjs/common';
import { centsText, toCents } from '../record-crm/revenue/money.js';
import { planStage } from '../record-crm/revenue/revenue-actions.service.js';
import { DealRevenueRepository } from '../record-crm/revenue/deal-revenue.repository.js';
import type { DealRevenueRow } from '../record-crm/revenue/deal-revenue.row.js';
import { quoteFromLineItems } from '../record-crm/revenue/quote-lines.js';
import { RevenueSettingsService } from '../record-crm/revenue/revenue-settings.service.js';
import { ZohoProductRepository } from '../record-crm/revenue/zoho-product.repository.js';
import { ZohoQuoteRepository } from '../record-crm/revenue/zoho-quote.repository.js';
import { RECORD_CRM, type RecordCrm, type ZohoRecord } from '../record-crm/record-crm.js';
import { ZohoRevenueClient, type DealPipeline } from '../record-crm/zoho/zoho-revenue.client.js';
import { ServiceApiClient } from '../service-api/service-api.client.js';
import { SyncLogRepository } from '../sync-log/sync-log.repository.js';
import { CallBudget, type SourceOutcome } from './call-budget.js';
import { CheckPositionRepository } from './check-position.repository.js';
import { lastChangeIsOurs, type DriftKind, type Finding, type RecordCheck } from './drift.js';
import { subjectsOf, text, type Subject } from './revenue-facts.js';

const KINDS = ['update_deal', 'push_quote'];
/** What the check reads of a Deal (crm-oas v8.0/record.json: `Modified_By` a Minified_User, `Modified_Time`). */
const DEAL_FIELDS = ['Amount', 'Stage', 'Closing_Date', 'Layout', 'Pipeline', 'Modified_By', 'Modified_Time'];
const QUOTE_FIELDS = ['Grand_Total', 'Modified_By', 'Modified_Time'];
const IDS_PER_CALL = 100;
/** Zoho's If-Modified-Since is to the second (records modified after it): the second the pass began is read again. */
const OVERLAP_MS = 1000;

/** A Quote the check compares, with the approval that made it and the Deal it hangs on. */
interface QuoteSubject {
  quoteId: string;
  subject: Subject;
}

/**
 * Zoho's side of the revenue check (docs/zoho-crm.md, "Revenue that stays right"): each Deal with an approval, its
 * Amount, Stage and Closing_Date against the approval and what `update_deal` wrote (`deal_revenue`); each approved
 * drawing's Quote, its Grand_Total and rows against the drawing's line items (D2) as `push_quote` makes them. A
 * changes pass reads the Deals and Quotes modified since the last one (Get Records sorted by Modified_Time with
 * `If-Modified-Since`: a 304 when nothing changed, one call per module) and those crm-sync wrote to since.
 */
@Injectable()
export class ZohoRevenueCheck {
  constructor(
    @Inject(RECORD_CRM) private readonly crm: RecordCrm,
    private readonly zoho: ZohoRevenueClient,
    private readonly service: ServiceApiClient,
    private readonly syncLog: SyncLogRepository,
    private readonly positions: CheckPositionRepository,
    private readonly deals: DealRevenueRepository,
    private readonly quotes: ZohoQuoteRepository,
    private readonly products: ZohoProductRepository,
    private readonly settings: RevenueSettingsService,
  ) {}

  async changes(budget: CallBudget, startedAt: Date, settle: (checks: RecordCheck[]) => Promise<void>): Promise<SourceOutcome> {
    const position = await this.positions.get('changes:record');
    const touched = position.since ? new Set(await this.syncLog.targetsTouchedSince('record', KINDS, position.since)) : null;
    const facts = await this.syncLog.revenueFacts('record', KINDS, null, true);
    const dealSubjects = subjectsOf(facts, 'update_deal').filter((s) => s.target.startsWith('Deals/'));
    const quoteSubjects = await this.quoteSubjects(subjectsOf(facts, 'push_quote'));
    const me = await this.me();
    let stopped = false;
    let checked = 0;

    // Deals: the listing carries every field compared, so a changed Deal costs no further call.
    const dealsChanged = await this.changedSince('Deals', DEAL_FIELDS, position.since, budget);
    stopped ||= dealsChanged.stopped;
    const dealById = new Map(dealSubjects.map((s) => [s.target.slice('Deals/'.length), s]));
    const dealReads = new Map<string, ZohoRecord>();
    for (const record of dealsChanged.records) if (dealById.has(record.id)) dealReads.set(record.id, record);
    const unlisted = [...dealById.keys()].filter((id) => !dealReads.has(id) && (!touched || touched.has(`Deals/${id}`)));
    if (!position.since || unlisted.length > 0) {
      const read = await this.readDeals(position.since ? unlisted : [...dealById.keys()], budget);
      stopped ||= read.stopped;
      for (const record of read.records) dealReads.set(record.id, record);
    }
    const dealChecks = await this.checkDeals(
      [...dealReads.values()].map((r) => ({ record: r, subject: dealById.get(r.id)! })),
      me,
    );
    checked += dealChecks.length;

    // Quotes: their rows are read one Quote at a time.
    const quotesChanged = await this.changedSince('Quotes', QUOTE_FIELDS, position.since, budget);
    stopped ||= quotesChanged.stopped;
    const changedQuotes = new Set(quotesChanged.records.map((r) => r.id));
    const quoteChecks: RecordCheck[] = [];
    for (const q of quoteSubjects) {
      if (position.since && !changedQuotes.has(q.quoteId) && !touched?.has(q.subject.target)) continue;
      if (!budget.fitsRecord(1)) {
        stopped = true;
        break;
      }
      quoteChecks.push(await budget.record(() => this.checkQuote(q, me)));
    }
    checked += quoteChecks.length;
    await settle([...dealChecks, ...quoteChecks]);
    // Stopped at the budget: this pass's window is read again next time (what was compared now is compared again).
    if (!stopped) await this.positions.save('changes:record', { since: new Date(startedAt.getTime() - OVERLAP_MS), afterKey: null });
    return { checked, calls: budget.spent, stopped };
  }

  async full(budget: CallBudget, settle: (checks: RecordCheck[]) => Promise<void>): Promise<SourceOutcome> {
    const position = await this.positions.get('full:record');
    const facts = await this.syncLog.revenueFacts('record', KINDS, null, true);
    const after = (key: string) => !position.afterKey || key > position.afterKey;
    const dealSubjects = subjectsOf(facts, 'update_deal').filter((s) => s.target.startsWith('Deals/') && after(s.target));
    const quoteSubjects = (await this.quoteSubjects(subjectsOf(facts, 'push_quote'))).filter((q) => after(`Quotes/${q.quoteId}`));
    const me = await this.me();
    let checked = 0;
    let stopped = false;
    let last: string | null = null;
    for (let at = 0; at < dealSubjects.length && !stopped; at += IDS_PER_CALL) {
      const chunk = dealSubjects.slice(at, at + IDS_PER_CALL);
      const read = await this.readDeals(
        chunk.map((s) => s.target.slice('Deals/'.length)),
        budget,
      );
      if (read.stopped) {
        stopped = true;
        break;
      }
      const byId = new Map(chunk.map((s) => [s.target.slice('Deals/'.length), s]));
      const checks = await this.checkDeals(
        read.records.map((r) => ({ record: r, subject: byId.get(r.id)! })),
        me,
      );
      await settle(checks);
      checked += checks.length;
      last = chunk.at(-1)!.target;
    }
    const quoteChecks: RecordCheck[] = [];
    for (const q of stopped ? [] : quoteSubjects) {
      if (!budget.fitsRecord(1)) {
        stopped = true;
        break;
      }
      quoteChecks.push(await budget.record(() => this.checkQuote(q, me)));
      checked++;
    }
    await settle(quoteChecks);
    await this.positions.save('full:record', { since: null, afterKey: stopped ? (last ?? position.afterKey) : null });
    return { checked, calls: budget.spent, stopped };
  }

  /** The email of the user crm-sync writes as (Modified_By of its own writes); null when not known. */
  private async me(): Promise<string | null> {
    return (await this.crm.connectedAccount(3_600_000).catch(() => null))?.userEmail ?? null;
  }

  /** The module's records modified since `since`, oldest first, page by page (one call each); none asked when never checked. */
  private async changedSince(module: 'Deals' | 'Quotes', fields: string[], since: Date | null, budget: CallBudget) {
    const records: ZohoRecord[] = [];
    if (!since) return { records, stopped: false };
    let pageToken: string | null = null;
    let page = 1;
    for (;;) {
      if (!budget.fits(1)) return { records, stopped: true };
      const result = await this.crm.listChangedRecords(module, { fields, modifiedSince: since, pageToken, page });
      records.push(...result.records);
      if (!result.moreRecords) return { records, stopped: false };
      pageToken = result.nextPageToken;
      page++;
    }
  }

  private async readDeals(ids: string[], budget: CallBudget): Promise<{ records: ZohoRecord[]; stopped: boolean }> {
    const records: ZohoRecord[] = [];
    for (let at = 0; at < ids.length; at += IDS_PER_CALL) {
      if (!budget.fits(1)) return { records, stopped: true };
      records.push(...(await this.crm.getRecordsByIds('Deals', ids.slice(at, at + IDS_PER_CALL), DEAL_FIELDS)));
    }
    return { records, stopped: false };
  }

  /** The Quote of each approved drawing: the mapped Quote itself, or the drawing's Quote crm-sync made on the Deal. */
  private async quoteSubjects(subjects: Subject[]): Promise<QuoteSubject[]> {
    const found: QuoteSubject[] = [];
    for (const subject of subjects) {
      const [module, recordId] = subject.target.split('/');
      const drawingId = text(subject.approval.payload.drawingId);
      const quoteId = module === 'Quotes' ? recordId : drawingId ? await this.quotes.find(recordId, drawingId) : null;
      if (quoteId) found.push({ quoteId, subject });
    }
    return found.sort((a, b) => (a.quoteId < b.quoteId ? -1 : 1));
  }

  private async checkDeals(pairs: Array<{ record: ZohoRecord; subject: Subject }>, me: string | null): Promise<RecordCheck[]> {
    if (pairs.length === 0) return [];
    const written = new Map<string, DealRevenueRow>((await this.deals.findByDealIds(pairs.map((p) => p.record.id))).map((r) => [r.dealId, r]));
    const { deal_stage_on_approved: wonStage } = await this.settings.current();
    const base = await this.crm.webBase().catch(() => null);
    const checks: RecordCheck[] = [];
    for (const { record, subject } of pairs) {
      const approval = subject.approval.payload;
      const row = written.get(record.id);
      const update = subject.written.get('update_deal');
      const modifiedAt = dateOf(record.Modified_Time);
      const modifiedBy = userOf(record.Modified_By);
      const common = {
        crm: 'record' as const,
        target: subject.target,
        projectId: subject.projectId,
        proposalId: text(approval.proposalId) ?? '',
        link: base ? `${base}/tab/Deals/${record.id}` : null,
        approvalEntryId: subject.approval.id,
        writtenEntryId: row?.entryId ?? update?.id ?? null,
        changedBy: modifiedBy?.name ?? null,
        changedAt: modifiedAt,
        byCrmSync: ours(modifiedBy?.email ?? null, me, modifiedAt, update?.finishedAt ?? null),
      };
      const findings: Finding[] = [];
      const checked: DriftKind[] = [];
      const amount = text(approval.amount);
      if (amount !== null) {
        checked.push('amount');
        if (!sameCents(record.Amount, amount)) {
          findings.push({
            ...common,
            kind: 'amount',
            serviceValue: centsText(toCents(amount)),
            writtenValue: row?.amount ?? null,
            crmValue: cents(record.Amount),
          });
        }
      }
      const closing = row?.closingDate ?? text(approval.closingDate);
      if (closing) {
        checked.push('closing_date');
        if (record.Closing_Date !== closing) {
          findings.push({
            ...common,
            kind: 'closing_date',
            serviceValue: closing,
            writtenValue: row?.closingDate ?? null,
            crmValue: text(record.Closing_Date),
          });
        }
      }
      if (wonStage) {
        const pipeline = await this.pipelineOf(record);
        const plan = planStage('won', wonStage, pipeline, text(record.Stage));
        if (!plan.problem) checked.push('stage');
        if (plan.write) {
          findings.push({ ...common, kind: 'stage', serviceValue: plan.write, writtenValue: row?.stage ?? null, crmValue: text(record.Stage) });
        }
      }
      checks.push({ crm: 'record', target: subject.target, checked, findings });
    }
    return checks;
  }

  /** One Quote read (its rows too) against the drawing's line items as push_quote makes them. */
  private async checkQuote(q: QuoteSubject, me: string | null): Promise<RecordCheck> {
    const target = `Quotes/${q.quoteId}`;
    const approval = q.subject.approval.payload;
    const quote = await this.zoho.getRecord('Quotes', q.quoteId);
    const drawingId = text(approval.drawingId);
    if (!drawingId) return { crm: 'record', target, checked: [], findings: [] };
    const meant = await this.quoteFigures(drawingId, text(approval.drawingVersionId));
    const written = q.subject.written.get('push_quote');
    // What crm-sync last wrote is its own push's drawing version (a later approval's push may have failed).
    const writtenDrawingId = written ? text(written.payload.drawingId) : null;
    const writtenVersionId = written ? text(written.payload.drawingVersionId) : null;
    const wrote =
      !written || !writtenDrawingId
        ? null
        : writtenDrawingId === drawingId && writtenVersionId === text(approval.drawingVersionId)
          ? meant
          : await this.quoteFigures(writtenDrawingId, writtenVersionId);
    const { rows: meantRows, total: meantTotal } = meant;
    const modifiedAt = dateOf(quote?.Modified_Time);
    const modifiedBy = userOf(quote?.Modified_By);
    const base = await this.crm.webBase().catch(() => null);
    const common = {
      crm: 'record' as const,
      target,
      projectId: q.subject.projectId,
      proposalId: text(approval.proposalId) ?? '',
      link: base ? `${base}/tab/Quotes/${q.quoteId}` : null,
      approvalEntryId: q.subject.approval.id,
      writtenEntryId: written?.id ?? null,
      changedBy: modifiedBy?.name ?? null,
      changedAt: modifiedAt,
      byCrmSync: ours(modifiedBy?.email ?? null, me, modifiedAt, written?.finishedAt ?? null),
    };
    const findings: Finding[] = [];
    const rows = quote && Array.isArray(quote.Quoted_Items) ? (quote.Quoted_Items as Array<Record<string, unknown>>) : [];
    const shownRows = rows.map((r) => cents(r.Net_Total) ?? 'nothing').join(', ');
    if (!quote || !sameCents(quote.Grand_Total, meantTotal)) {
      findings.push({
        ...common,
        kind: 'quote_total',
        serviceValue: meantTotal,
        writtenValue: wrote?.total ?? null,
        crmValue: quote ? cents(quote.Grand_Total) : null,
      });
    }
    if (quote && shownRows !== meantRows) {
      findings.push({ ...common, kind: 'quote_rows', serviceValue: meantRows, writtenValue: wrote?.rows ?? null, crmValue: shownRows || null });
    }
    return { crm: 'record', target, checked: ['quote_total', 'quote_rows'], findings };
  }

  /** A drawing version's line items as push_quote makes them a Quote: its rows' Net_Totals and its Grand_Total. */
  private async quoteFigures(drawingId: string, versionId: string | null): Promise<{ rows: string; total: string }> {
    const lineItems = await this.service.getLineItems(drawingId, versionId ?? undefined);
    const settings = await this.settings.current();
    const skus = [...new Set((lineItems.line_items ?? []).map((i) => i.sku).filter((s): s is string => typeof s === 'string' && s !== ''))];
    const known = await this.products.findBySkus(skus);
    const draft = quoteFromLineItems(lineItems, (item) => (item.sku ? known.get(item.sku) : undefined) ?? settings.fallback_product_id);
    return { rows: draft.lines.map((l) => centsText(l.totalCents)).join(', '), total: centsText(draft.grandTotalCents) };
  }

  private async pipelineOf(deal: ZohoRecord): Promise<DealPipeline | string> {
    // Zoho's material shows a Deal's layout as `Layout` or `$layout_id` (docs/zoho-crm.md, the ledger): both read.
    const layoutId = lookupId(deal.Layout) ?? lookupId(deal.$layout_id);
    if (!layoutId) return `Zoho shows no Layout of Deal ${deal.id}`;
    const pipelines = await this.zoho.pipelines(layoutId);
    const name = text(deal.Pipeline) ?? (deal.Pipeline && typeof deal.Pipeline === 'object' ? text((deal.Pipeline as { name?: unknown }).name) : null);
    return (name === null ? pipelines.find((p) => p.default) : pipelines.find((p) => p.name === name)) ?? `pipeline ${name ?? '(default)'} not found`;
  }
}

/**
 * crm-sync's own write was the record's last change: Zoho names crm-sync's user as its last modifier (when both are
 * known) and its Modified_Time is no later than the end of that write.
 */
function ours(modifiedBy: string | null, me: string | null, modifiedAt: Date | null, writtenAt: Date | null): boolean {
  if (modifiedBy && me && modifiedBy.toLowerCase() !== me.toLowerCase()) return false;
  return lastChangeIsOurs(modifiedAt, writtenAt);
}

function userOf(value: unknown): { name: string | null; email: string | null } | null {
  if (!value || typeof value !== 'object') return null;
  const user = value as { name?: unknown; email?: unknown };
  return { name: text(user.name), email: text(user.email) };
}

function sameCents(actual: unknown, meant: string): boolean {
  return (typeof actual === 'number' || typeof actual === 'string') && /^-?\d+(\.\d+)?$/.test(String(actual)) && toCents(actual) === toCents(meant);
}

function cents(value: unknown): string | null {
  return typeof value === 'number' || (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) ? centsText(toCents(value)) : text(value);
}

function dateOf(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? null : at;
}

function lookupId(value: unknown): string | null {
  if (!value || typeof value !== 'object') return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' && id !== '' ? id : null;
}
