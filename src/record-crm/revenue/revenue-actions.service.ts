import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { assertLockHeld, withAdvisoryLock } from '../../database/advisory-lock.js';
import type { DealField, PushQuotePayload, UpdateDealPayload } from '../../domain/actions.js';
import { OutboundError } from '../../http/outbound-error.js';
import { withRetries } from '../../http/retry.js';
import { QUEUES } from '../../queues/queues.js';
import { ServiceApiClient } from '../../service-api/service-api.client.js';
import type { LineItem, LineItemsResult } from '../../service-api/service-api.types.js';
import { PermanentActionError, type ActionEntry, type ActionOutcome } from '../../actions/action.types.js';
import { RunsAction } from '../../actions/runs-action.decorator.js';
import { untilLanded } from '../../actions/write-fence.service.js';
import { DealRevenueRepository } from './deal-revenue.repository.js';
import { centsText, jsonCents, jsonDecimal, toCents } from './money.js';
import { quoteFromLineItems, type QuoteDraft } from './quote-lines.js';
import { recordTarget } from '../record-crm.js';
import type { ZohoTrigger } from '../../crm-settings/automation-settings.js';
import { RevenueSettingsService, type RevenueSettings } from './revenue-settings.service.js';
import { ZohoProductRepository } from './zoho-product.repository.js';
import { ZohoQuoteRepository } from './zoho-quote.repository.js';
import {
  dayIn,
  StaleWriteError,
  ZohoRevenueClient,
  type DealPipeline,
  type PipelineStage,
  type WriteResult,
  type ZohoFields,
} from '../zoho/zoho-revenue.client.js';

const ON_RECORD_QUEUE = { crm: 'record', queue: QUEUES.recordCrm } as const;
const SUBJECT_MAX = 255;

/**
 * Revenue in Zoho (docs/zoho-crm.md, "Revenue"): a Deal follows its proposal (`update_deal`), and a drawing's line
 * items become the Quoted_Items of a Quote (`push_quote`). The settings are read when the action runs.
 */
@Injectable()
export class RevenueActionsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly zoho: ZohoRevenueClient,
    private readonly service: ServiceApiClient,
    private readonly settings: RevenueSettingsService,
    private readonly products: ZohoProductRepository,
    private readonly deals: DealRevenueRepository,
    private readonly quotes: ZohoQuoteRepository,
  ) {}

  @RunsAction('update_deal', ON_RECORD_QUEUE)
  async updateDeal(entry: ActionEntry<'update_deal'>): Promise<ActionOutcome> {
    return this.updateDealWith(entry, await this.settings.current());
  }

  @RunsAction('push_quote', ON_RECORD_QUEUE)
  async pushQuote(entry: ActionEntry<'push_quote'>): Promise<ActionOutcome> {
    return this.pushQuoteWith(entry, await this.settings.current());
  }

  /**
   * Amount and Closing_Date on an approval (the approval's day in the org's time zone), and the stage from the Deal's
   * own pipeline (planStage), written in one update with `If-Unmodified-Since` (a rep's edit in between: read again and
   * tried once more) and read back. A stage that is not in the Deal's pipeline is never sent: the rest is written and
   * the entry fails naming the pipeline and the stage. An update Zoho holds for approval ends `waiting`.
   */
  async updateDealWith(entry: ActionEntry<'update_deal'>, settings: RevenueSettings): Promise<ActionOutcome> {
    const p: UpdateDealPayload = entry.payload;
    const target = recordTarget(p);
    if (p.module !== 'Deals') return { status: 'skipped', detail: `${target} is not a Deal: only a Deal follows its proposal` };
    const configured = p.status === 'APPROVED' ? settings.deal_stage_on_approved : settings.deal_stage_on_lost;
    if (p.status !== 'APPROVED' && !configured) return { status: 'skipped', detail: `proposal ${p.proposalId} is ${p.status}; no lost stage is set` };

    const fields: Record<string, unknown> = {};
    const written: string[] = [];
    // A revenue heal writes its own field only: the others may hold a person's value.
    const writes = (field: DealField) => !p.only || p.only.includes(field);
    if (p.status === 'APPROVED' && p.amount !== undefined && writes('Amount')) {
      const cents = toCents(p.amount);
      fields.Amount = jsonCents(cents);
      written.push(`Amount ${centsText(cents)}`);
    }
    const closingDate = p.status === 'APPROVED' && writes('Closing_Date') ? await this.closingDateOf(p) : null;
    if (closingDate) {
      fields.Closing_Date = closingDate;
      written.push(`Closing_Date ${closingDate}`);
    }
    for (let round = 1; ; round++) {
      const deal = await this.zoho.getRecord('Deals', p.recordId);
      if (!deal) throw new PermanentActionError(`Zoho has no Deal ${p.recordId}`);
      const plan = configured && writes('Stage') ? await this.stagePlan(p.status === 'APPROVED' ? 'won' : 'lost', configured, deal) : {};
      const update = plan.write ? { ...fields, Stage: plan.write } : fields;
      const sent = plan.write ? [...written, `Stage ${plan.write}`] : written;
      const kept = plan.kept ? `; ${plan.kept}` : '';
      if (sent.length === 0) {
        if (plan.problem) throw new PermanentActionError(`${target}: ${plan.problem}`);
        return { status: 'skipped', detail: `nothing to write to ${target}${kept}` };
      }
      let result: WriteResult;
      try {
        result = await this.zoho.updateRecord('Deals', p.recordId, update, {
          unmodifiedSince: stringOf(deal.Modified_Time) ?? undefined,
          trigger: settings.trigger,
        });
      } catch (err) {
        // A rep changed the Deal between the read and the write: read it again (its stage may have moved on), once.
        if (err instanceof StaleWriteError && round === 1) continue;
        throw err;
      }
      const done = `${target}: ${sent.join(', ')} (proposal ${p.proposalId} ${p.status})${kept}`;
      if (isHeld(result)) return { status: 'waiting', detail: `waiting for approval in Zoho ($approval_state ${result.approvalState}): ${done}` };
      await this.verifyDeal(target, p.recordId, update);
      await this.deals.saveWritten({
        dealId: p.recordId,
        projectId: entry.projectId,
        proposalId: p.proposalId,
        amount: fields.Amount === undefined ? null : centsText(toCents(p.amount!)),
        stage: plan.write ?? null,
        closingDate,
        entryId: String(entry.id),
      });
      if (plan.problem) throw new PermanentActionError(`${done}; ${plan.problem}`);
      return { status: 'succeeded', detail: done };
    }
  }

  /**
   * The API names of the Quoted_Items fields crm-sync writes, as the org's metadata spells them (matched ignoring case
   * and underscores: Zoho's own material writes `List_Price`, `list_price`, `List_price` and `ListPrice`); where the
   * metadata names none, the Node SDK's spelling. The read-back catches a key Zoho still ignores.
   */
  private async subformKeys(): Promise<SubformKeys> {
    const fields = await this.zoho.fieldsOf('Quoted_Items');
    const squash = (name: string) => name.replace(/_/g, '').toLowerCase();
    const keyOf = (sdk: string) => fields.find((f) => squash(f.apiName) === squash(sdk))?.apiName ?? sdk;
    return {
      product: keyOf('Product_Name'),
      quantity: keyOf('Quantity'),
      listPrice: keyOf('List_Price'),
      discount: keyOf('Discount'),
      description: keyOf('Description'),
    };
  }

  /**
   * The Quote of the line items, their taxes as the org's (read only for a drawing with taxes, kept 10 minutes; read
   * again when one finds no match, as an admin may have added it since).
   */
  private async draftOf(lineItems: LineItemsResult, productOf: (item: LineItem) => string | null, fresh: boolean): Promise<QuoteDraft> {
    if ((lineItems.taxes ?? []).length === 0) return quoteFromLineItems(lineItems, productOf);
    const draft = quoteFromLineItems(lineItems, productOf, await this.zoho.orgTaxes(fresh));
    if (fresh) return draft;
    return draft.taxesInAdjustment.length === 0 ? draft : quoteFromLineItems(lineItems, productOf, await this.zoho.orgTaxes(true));
  }

  /** The approval's day in the org's time zone; an entry recorded before the instant was kept carries its UTC day. */
  private async closingDateOf(p: UpdateDealPayload): Promise<string | null> {
    if (!p.approvedAt) return p.closingDate ?? null;
    return dayIn(new Date(p.approvedAt), await this.zoho.orgTimeZone());
  }

  /**
   * planStage over the Deal's pipeline as kept for 10 minutes; when that does not place a stage (an admin changed the
   * pipelines since), over the pipeline read again.
   */
  private async stagePlan(kind: 'won' | 'lost', configured: string, deal: ZohoFields): Promise<StagePlan> {
    const plan = planStage(kind, configured, await this.pipelineOf(deal, false), stringOf(deal.Stage));
    const unplaced = plan.problem !== undefined || (plan.kept !== undefined && plan.kept.includes('not a stage of'));
    return unplaced ? planStage(kind, configured, await this.pipelineOf(deal, true), stringOf(deal.Stage)) : plan;
  }

  /**
   * The Deal's pipeline: its `Pipeline` among its layout's pipelines (the layout's default one when it names none). The
   * layout is read from `Layout` or `$layout_id`, whichever the answer has: crm-oas v8 updateRecord answers with
   * `$layout_id`, captured real answers show only it, and older material shows `Layout` (docs/zoho-crm.md, ledger).
   */
  private async pipelineOf(deal: ZohoFields, fresh: boolean): Promise<DealPipeline | string> {
    const layoutId = lookupId(deal.Layout) ?? layoutIdOf(deal.$layout_id);
    if (!layoutId) return `Zoho shows no layout of Deal ${deal.id} (neither Layout nor $layout_id), so its pipeline's stages are unknown`;
    const pipelines = await this.zoho.pipelines(layoutId, fresh);
    const name = stringOf(deal.Pipeline) ?? (isLookup(deal.Pipeline) ? stringOf(deal.Pipeline.name) : null);
    const found = name === null ? pipelines.find((pl) => pl.default) : pipelines.find((pl) => pl.name === name);
    return found ?? `the Deal's pipeline ${name ?? '(default)'} is not among the pipelines of its layout ${layoutId}`;
  }

  /** Reads the Deal back: each field written must show what was meant, else the entry fails naming both values. */
  private async verifyDeal(target: string, dealId: string, update: Record<string, unknown>): Promise<void> {
    const deal = await this.zoho.getRecord('Deals', dealId);
    if (!deal) throw new PermanentActionError(`${target} was written, but Zoho no longer shows it`);
    const differences: string[] = [];
    if (update.Amount !== undefined && !sameAmount(deal.Amount, String(update.Amount)))
      differences.push(`Amount ${shown(deal.Amount)} (meant ${String(update.Amount)})`);
    for (const field of ['Stage', 'Closing_Date'] as const) {
      if (update[field] !== undefined && deal[field] !== update[field]) differences.push(`${field} ${shown(deal[field])} (meant ${String(update[field])})`);
    }
    if (differences.length > 0) throw new PermanentActionError(`${target} reads back otherwise than written: Zoho shows ${differences.join(', ')}`);
  }

  /**
   * The drawing's line items as Quoted_Items: on the mapped Quote, or on the drawing's own Quote linked to the
   * mapped Deal, found by its Subject before one is created (a create whose answer was lost is waited out and found,
   * never made twice). The rows are replaced on every push; the Quote's totals equal the service's to the cent.
   */
  async pushQuoteWith(entry: ActionEntry<'push_quote'>, settings: RevenueSettings): Promise<ActionOutcome> {
    const p: PushQuotePayload = entry.payload;
    if (!settings.quote_line_items) return { status: 'skipped', detail: 'line items as Quotes are off (quote_line_items)' };
    if (p.module !== 'Deals' && p.module !== 'Quotes') return { status: 'skipped', detail: `${recordTarget(p)} is neither a Deal nor a Quote` };

    const lineItems = await this.service.getLineItems(p.drawingId, p.drawingVersionId);
    let freshTaxes = false;
    for (let round = 1; ; round++) {
      const productOf = await this.productsOf(lineItems.line_items ?? [], settings.fallback_product_id);
      const draft = await this.draftOf(lineItems, productOf, freshTaxes);
      if (draft.lines.length === 0) {
        throw new PermanentActionError(
          `no line item of drawing ${p.drawingId} has a Zoho product (Product_Code = SKU) or a fallback product; left out: ${draft.leftOut.join(', ')}`,
        );
      }
      try {
        const { quoteId, verb, held } = await this.writeQuote(p, quoteFields(draft, await this.subformKeys()), settings.trigger);
        const done = `${verb} Quotes/${quoteId} for drawing ${p.drawingId}: ${describe(draft)}`;
        if (held) return { status: 'waiting', detail: `waiting for approval in Zoho ($approval_state ${held}): ${done}` };
        await this.verifyQuote(quoteId, draft);
        return { status: 'succeeded', detail: done };
      } catch (err) {
        // A product remembered from an earlier push that Zoho no longer knows: forgotten, and looked up once more; a
        // tax kept from an earlier read that the org no longer has: the taxes read again.
        if (round > 1 || !(refusedProduct(err) || refusedTax(err))) throw err;
        freshTaxes = refusedTax(err);
        if (refusedProduct(err)) await this.products.forget(draft.lines.map((l) => l.productId).filter((id) => id !== settings.fallback_product_id));
      }
    }
  }

  /**
   * One write of a Quote at a time, across replicas: two pushes of the same drawing running together (an approval
   * and an export prompt, a retry beside a new push) would each find no Quote and create one, or interleave their
   * row replacements. Each write to Zoho is made only while the lock is held: a lost lock (its connection gone) stops the
   * push before its next write, and the action runs again under the lock, finding what the other push made. A create
   * cannot be called back once sent: the next holder waits until it would have landed (`afterUnansweredCreate`).
   */
  private writeQuote(p: PushQuotePayload, fields: Record<string, unknown>, trigger: readonly ZohoTrigger[]): Promise<QuoteWritten> {
    const key = p.module === 'Quotes' ? `zoho-quote:${p.recordId}` : `zoho-quote:${p.recordId}:${p.drawingId}`;
    return withAdvisoryLock(this.config.databaseUrl, key, (signal) => this.writeQuoteLocked(p, fields, trigger, signal));
  }

  private async writeQuoteLocked(
    p: PushQuotePayload,
    fields: Record<string, unknown>,
    trigger: readonly ZohoTrigger[],
    lock: AbortSignal,
  ): Promise<QuoteWritten> {
    if (p.module === 'Quotes') {
      const held = heldState(await this.replaceItems(p.recordId, fields, trigger, lock));
      return { quoteId: p.recordId, verb: 'replaced the items of', held };
    }
    await this.afterUnansweredCreate(p, lock);
    const existing = await this.findQuote(p.recordId, p.drawingId);
    if (existing) {
      const held = heldState(await this.replaceItems(existing.id, fields, trigger, lock));
      await this.quotes.save(p.recordId, p.drawingId, existing.id);
      return { quoteId: existing.id, verb: 'replaced the items of', held };
    }
    const quoteId = await this.createQuote(p, await this.subjectOf(p.drawingId), fields, trigger, lock);
    await this.quotes.save(p.recordId, p.drawingId, quoteId);
    return { quoteId, verb: 'created' };
  }

  /**
   * A create of this Quote sent by an earlier run and never answered (its lock lost, its replica gone, its answer cut
   * off) may still be applied by Zoho: the Quote is looked for only once that create would have landed, twice the
   * time-out after it was sent (the time-out, then as long again, as a run waits for its own unanswered create), so
   * it is found instead of made a second time.
   */
  private async afterUnansweredCreate(p: PushQuotePayload, lock: AbortSignal): Promise<void> {
    const sentAt = await this.quotes.unansweredCreate(p.recordId, p.drawingId);
    await untilLanded(sentAt?.getTime(), this.config.http.timeoutMs, lock).catch(() => assertLockHeld(lock));
  }

  /**
   * Each SKU's Zoho product: remembered, else found by Product_Code (the SKUs not remembered, up to 50 a query) and
   * remembered; else the fallback product.
   */
  private async productsOf(items: LineItem[], fallback: string | null): Promise<(item: LineItem) => string | null> {
    const skus = [...new Set(items.map((i) => i.sku).filter((s): s is string => typeof s === 'string' && s !== ''))];
    const known = await this.products.findBySkus(skus);
    const unknown = skus.filter((s) => !known.has(s));
    for (const found of unknown.length > 0 ? await this.zoho.findProductsByCodes(unknown) : []) {
      await this.products.save(found.code, found.id);
      known.set(found.code, found.id);
    }
    return (item) => (item.sku ? known.get(item.sku) : undefined) ?? fallback;
  }

  private async subjectOf(drawingId: string): Promise<string> {
    const drawing = await this.service.getDrawing(drawingId);
    return `${subjectPrefix(drawingId)} ${drawing.name}`.slice(0, SUBJECT_MAX);
  }

  /**
   * The drawing's Quote on this Deal: the one remembered when still there, else by its Subject (Zoho's search
   * matches loosely: checked exactly here), which also finds a Quote whose create answer was lost.
   */
  private async findQuote(dealId: string, drawingId: string): Promise<ZohoFields | null> {
    const remembered = await this.quotes.find(dealId, drawingId);
    if (remembered) {
      const quote = await this.zoho.getRecord('Quotes', remembered);
      if (quote && lookupId(quote.Deal_Name) === dealId) return quote;
    }
    const prefix = subjectPrefix(drawingId);
    const quotes = await this.zoho.findQuotes(prefix);
    return (
      quotes.find((q) => typeof q.Subject === 'string' && (q.Subject === prefix || q.Subject.startsWith(`${prefix} `)) && lookupId(q.Deal_Name) === dealId) ??
      null
    );
  }

  /**
   * Creates the Quote, linked to the Deal and its account and contact (Zoho requires Account_Name). Each new try
   * first looks for the Quote: a create left unanswered waits as long as it went unanswered (OutboundError's
   * retryAfterMs), so one that Zoho applied late is found rather than made again.
   */
  private async createQuote(
    p: PushQuotePayload,
    subject: string,
    fields: Record<string, unknown>,
    trigger: readonly ZohoTrigger[],
    lock: AbortSignal,
  ): Promise<string> {
    const deal = await this.zoho.getRecord('Deals', p.recordId);
    if (!deal) throw new PermanentActionError(`Zoho has no Deal ${p.recordId}`);
    const links: Record<string, unknown> = { Deal_Name: { id: p.recordId } };
    const account = lookupId(deal.Account_Name);
    const contact = lookupId(deal.Contact_Name);
    if (account) links.Account_Name = { id: account };
    if (contact) links.Contact_Name = { id: contact };
    return withRetries(async (attempt) => {
      const earlier = attempt > 1 ? await this.findQuote(p.recordId, p.drawingId) : null;
      if (earlier) return earlier.id;
      assertLockHeld(lock);
      await this.quotes.createSent(p.recordId, p.drawingId);
      try {
        return await this.zoho.createQuote({ Subject: subject, ...links, ...fields }, trigger);
      } catch (err) {
        if (isRefusal(err)) await this.quotes.createRefused(p.recordId, p.drawingId);
        throw err;
      }
    }, this.config.http.retry);
  }

  /** Deletes every row the Quote has (by id) and adds the new ones, in one update; read again before each try. */
  private replaceItems(quoteId: string, fields: Record<string, unknown>, trigger: readonly ZohoTrigger[], lock: AbortSignal): Promise<WriteResult> {
    return withRetries(async () => {
      const quote = await this.zoho.getRecord('Quotes', quoteId);
      if (!quote) throw new PermanentActionError(`Zoho has no Quote ${quoteId}`);
      const old = (Array.isArray(quote.Quoted_Items) ? quote.Quoted_Items : []).flatMap((row) => {
        const id = lookupId(row);
        return id ? [{ id, _delete: null }] : [];
      });
      assertLockHeld(lock);
      return this.zoho.updateQuote(quoteId, { ...fields, Quoted_Items: [...old, ...(fields.Quoted_Items as unknown[])] }, { trigger });
    }, this.config.http.retry);
  }

  /**
   * Reads the Quote back (every row, past a single GET's cut): its rows' totals and its Grand_Total must be the ones
   * computed; a difference fails the entry with both values (and the failure alert goes out).
   */
  private async verifyQuote(quoteId: string, draft: QuoteDraft): Promise<void> {
    const quote = await this.zoho.getRecord('Quotes', quoteId);
    if (!quote) throw new PermanentActionError(`Quotes/${quoteId} was written, but Zoho no longer shows it`);
    const differences: string[] = [];
    const rows = Array.isArray(quote.Quoted_Items) ? quote.Quoted_Items.filter(isLookup) : [];
    const shownRows = rows.map((r) => amountShown(r.Net_Total));
    const meantRows = draft.lines.map((l) => centsText(l.totalCents));
    if (shownRows.join(', ') !== meantRows.join(', ')) differences.push(`rows ${shownRows.join(', ') || 'none'} (meant ${meantRows.join(', ')})`);
    if (!sameAmount(quote.Grand_Total, centsText(draft.grandTotalCents))) {
      differences.push(`Grand_Total ${amountShown(quote.Grand_Total)} (meant ${centsText(draft.grandTotalCents)})`);
    }
    if (differences.length > 0) throw new PermanentActionError(`Quotes/${quoteId} reads back otherwise than written: Zoho shows ${differences.join(', ')}`);
  }
}

/** A Quote written: its id, what was done, and Zoho's `$approval_state` when it holds the write. */
interface QuoteWritten {
  quoteId: string;
  verb: string;
  held?: string | null;
}

function heldState(result: WriteResult): string | null {
  return isHeld(result) ? result.approvalState : null;
}

/** What to do with a Deal's stage: write one, keep the current one (and say why), and a problem to report. */
export interface StagePlan {
  write?: string;
  kept?: string;
  problem?: string;
}

/**
 * The stage a Deal moves to, from its own pipeline (crm-oas v8.0/pipeline/pipeline.yaml): "won" is the configured
 * stage when the pipeline has it, else the pipeline's Closed Won stage; "lost" only the configured one. The Deal
 * moves unless it has moved on: it is at that stage, at a later stage of the pipeline (by `sequence_number`, custom
 * open stages after the closed ones included), or at any closed stage. A stage the pipeline lacks is never sent.
 */
export function planStage(kind: 'won' | 'lost', configured: string, pipeline: DealPipeline | string, current: string | null): StagePlan {
  if (typeof pipeline === 'string') return { problem: `Stage not written: ${pipeline}` };
  const named = pipeline.stages.find((s) => s.value === configured);
  const goal = named ?? (kind === 'won' ? wonStageOf(pipeline) : undefined);
  if (!goal) {
    const fallback = kind === 'won' ? ' and it has no Closed Won stage' : '';
    return { problem: `Stage not written: ${configured} is not a stage of the Deal's pipeline ${pipeline.name}${fallback}` };
  }
  if (!current) return { write: goal.value };
  if (current === goal.value) return { kept: `Stage left at ${current}` };
  const at = pipeline.stages.find((s) => s.value === current);
  if (!at) return { kept: `Stage left at ${current} (not a stage of the Deal's pipeline ${pipeline.name})` };
  if (at.forecast !== 'Open') return { kept: `Stage left at ${current} (closed)` };
  if (at.sequence > goal.sequence) return { kept: `Stage left at ${current} (after ${goal.value} in pipeline ${pipeline.name})` };
  return { write: goal.value };
}

/** A pipeline's won stage: its first stage forecast `Closed Won`. */
function wonStageOf(pipeline: DealPipeline): PipelineStage | undefined {
  return [...pipeline.stages].sort((a, b) => a.sequence - b.sequence).find((s) => s.forecast === 'Closed Won');
}

/** Zoho holds the write for its approval process: `$approval_state` other than `approved`. */
function isHeld(result: WriteResult): boolean {
  return result.approvalState !== null && result.approvalState !== 'approved';
}

function sameAmount(actual: unknown, meant: string): boolean {
  return (typeof actual === 'number' || typeof actual === 'string') && toCents(actual) === toCents(meant);
}

/** An amount as Zoho showed it, to the cent; anything else as it came. */
function amountShown(value: unknown): string {
  return typeof value === 'number' || (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)) ? centsText(toCents(value)) : shown(value);
}

function shown(value: unknown): string {
  return value === undefined || value === null ? 'nothing' : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function stringOf(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function isLookup(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The start of the Subject of a drawing's Quote, which finds it again. */
export function subjectPrefix(drawingId: string): string {
  return `Drawing ${drawingId} -`;
}

/** The org's API names of the Quoted_Items fields crm-sync writes. */
interface SubformKeys {
  product: string;
  quantity: string;
  listPrice: string;
  discount: string;
  description: string;
}

function quoteFields(draft: QuoteDraft, keys: SubformKeys): Record<string, unknown> {
  return {
    Quoted_Items: draft.lines.map((line) => ({
      [keys.product]: { id: line.productId },
      [keys.quantity]: jsonDecimal(line.quantity),
      [keys.listPrice]: jsonCents(line.listPriceCents),
      [keys.discount]: jsonCents(line.discountCents),
      [keys.description]: line.description,
    })),
    Discount: jsonCents(draft.discountCents),
    // Zoho computes Tax from the Quote's taxes (percentages of the org's taxes): no Zoho example writes Tax itself.
    // Sent on every push, empty too, so that a push replaces the taxes of an earlier one.
    $line_tax: draft.lineTaxes.map((t) => ({ id: t.id, name: t.name, percentage: jsonDecimal(t.percentage) })),
    Adjustment: jsonCents(draft.adjustmentCents),
  };
}

function describe(draft: QuoteDraft): string {
  const parts = [
    `${draft.lines.length} item(s)`,
    `Sub_Total ${centsText(draft.subTotalCents)}`,
    `Discount ${centsText(draft.discountCents)}`,
    `Tax ${centsText(draft.taxCents)}`,
    `Adjustment ${centsText(draft.adjustmentCents)}`,
    `Grand_Total ${centsText(draft.grandTotalCents)}`,
  ];
  if (draft.taxesMatched.length > 0) parts.push(`taxes as the org's ($line_tax): ${draft.taxesMatched.join(', ')}`);
  if (draft.taxesInAdjustment.length > 0) parts.push(`in the Adjustment (no such tax in Zoho): ${draft.taxesInAdjustment.join(', ')}`);
  if (draft.leftOut.length > 0) parts.push(`left out (no Zoho product): ${draft.leftOut.join(', ')}`);
  if (draft.folded.length > 0) parts.push(`in the adjustment (no row possible): ${draft.folded.join(', ')}`);
  return parts.join(', ');
}

/** Zoho refused a row's product (INVALID_DATA on Quoted_Items[…].Product_Name): a product deleted since it was found. */
function refusedProduct(err: unknown): boolean {
  return err instanceof OutboundError && err.status === 400 && /^INVALID_DATA/.test(err.excerpt) && /Product_Name/.test(err.excerpt);
}

/** `$layout_id` as a lookup (`{id, name, display_label}`) or as the bare id. */
function layoutIdOf(value: unknown): string | null {
  if (typeof value === 'string' && /^\d+$/.test(value)) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return lookupId(value);
}

/** Zoho refused a tax of the Quote (INVALID_DATA on `$line_tax`): one deleted in the org since its taxes were read. */
function refusedTax(err: unknown): boolean {
  return err instanceof OutboundError && err.status === 400 && /^INVALID_DATA/.test(err.excerpt) && /\$line_tax/.test(err.excerpt);
}

function lookupId(value: unknown): string | null {
  if (!value || typeof value !== 'object') return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' && id !== '' ? id : typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : null;
}

/**
 * An answer saying the write was not applied: Zoho refused the record (`data[0]` with an error) or the request (a 4xx
 * other than a time-out). A 5xx or no answer at all leaves it open whether the create landed.
 */
export function isRefusal(err: unknown): boolean {
  if (!(err instanceof OutboundError) || err.status === null) return false;
  return err.failure === 'rejected' || (err.status >= 400 && err.status < 500 && err.status !== 408);
}
