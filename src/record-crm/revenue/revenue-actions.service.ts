import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { withAdvisoryLock } from '../../database/advisory-lock.js';
import type { PushQuotePayload, UpdateDealPayload } from '../../domain/actions.js';
import { OutboundError } from '../../http/outbound-error.js';
import { withRetries } from '../../http/retry.js';
import { QUEUES } from '../../queues/queues.js';
import { ServiceApiClient } from '../../service-api/service-api.client.js';
import type { LineItem } from '../../service-api/service-api.types.js';
import { PermanentActionError, type ActionEntry, type ActionOutcome } from '../../actions/action.types.js';
import { RunsAction } from '../../actions/runs-action.decorator.js';
import { DealRevenueRepository } from './deal-revenue.repository.js';
import { centsText, jsonCents, jsonDecimal, toCents } from './money.js';
import { quoteFromLineItems, type QuoteDraft } from './quote-lines.js';
import { recordTarget } from '../record-crm.js';
import { RevenueSettingsService, type RevenueSettings } from './revenue-settings.service.js';
import { ZohoProductRepository } from './zoho-product.repository.js';
import { ZohoQuoteRepository } from './zoho-quote.repository.js';
import { ZohoRevenueClient, type StageValue, type ZohoFields } from '../zoho/zoho-revenue.client.js';

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
   * Amount and Closing_Date on an approval, and the configured stage, written in one update. The stage is written
   * only while the Deal's current Stage comes before it in the Stage pick list: a Deal a rep moved on (to the
   * configured stage or past it) keeps its stage, whatever re-delivery, replay or reconciliation comes later.
   */
  async updateDealWith(entry: ActionEntry<'update_deal'>, settings: RevenueSettings): Promise<ActionOutcome> {
    const p: UpdateDealPayload = entry.payload;
    const target = recordTarget(p);
    if (p.module !== 'Deals') return { status: 'skipped', detail: `${target} is not a Deal: only a Deal follows its proposal` };
    const stage = p.status === 'APPROVED' ? settings.deal_stage_on_approved : settings.deal_stage_on_lost;
    if (p.status !== 'APPROVED' && !stage) return { status: 'skipped', detail: `proposal ${p.proposalId} is ${p.status}; no lost stage is set` };

    const deal = await this.zoho.getRecord('Deals', p.recordId);
    if (!deal) throw new PermanentActionError(`Zoho has no Deal ${p.recordId}`);
    const fields: Record<string, unknown> = {};
    const written: string[] = [];
    if (p.status === 'APPROVED' && p.amount !== undefined) {
      const cents = toCents(p.amount);
      fields.Amount = jsonCents(cents);
      written.push(`Amount ${centsText(cents)}`);
    }
    if (p.status === 'APPROVED' && p.closingDate) {
      fields.Closing_Date = p.closingDate;
      written.push(`Closing_Date ${p.closingDate}`);
    }
    let kept = '';
    if (stage) {
      const current = typeof deal.Stage === 'string' ? deal.Stage : null;
      if (comesBefore(current, stage, await this.zoho.dealStages())) {
        fields.Stage = stage;
        written.push(`Stage ${stage}`);
      } else kept = `; Stage left at ${current} (at or past ${stage})`;
    }
    if (written.length === 0) return { status: 'skipped', detail: `nothing to write to ${target}${kept}` };
    await this.zoho.updateRecord('Deals', p.recordId, fields);
    await this.deals.saveWritten({
      dealId: p.recordId,
      projectId: entry.projectId,
      proposalId: p.proposalId,
      amount: fields.Amount === undefined ? null : centsText(toCents(p.amount!)),
      stage: typeof fields.Stage === 'string' ? fields.Stage : null,
      closingDate: p.closingDate ?? null,
      entryId: String(entry.id),
    });
    return { status: 'succeeded', detail: `${target}: ${written.join(', ')} (proposal ${p.proposalId} ${p.status})${kept}` };
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
    for (let round = 1; ; round++) {
      const productOf = await this.productsOf(lineItems.line_items ?? [], settings.fallback_product_id);
      const draft = quoteFromLineItems(lineItems, (item) => productOf(item));
      if (draft.lines.length === 0) {
        throw new PermanentActionError(
          `no line item of drawing ${p.drawingId} has a Zoho product (Product_Code = SKU) or a fallback product; left out: ${draft.leftOut.join(', ')}`,
        );
      }
      try {
        const { quoteId, verb } = await this.writeQuote(p, quoteFields(draft));
        return {
          status: 'succeeded',
          detail: `${verb} Quotes/${quoteId} for drawing ${p.drawingId}: ${describe(draft)}${await this.checkTotals(quoteId, draft)}`,
        };
      } catch (err) {
        // A product remembered from an earlier push that Zoho no longer knows: forgotten, and looked up once more.
        if (round > 1 || !refusedProduct(err)) throw err;
        await this.products.forget(draft.lines.map((l) => l.productId).filter((id) => id !== settings.fallback_product_id));
      }
    }
  }

  /**
   * One write of a Quote at a time, across replicas: two pushes of the same drawing running together (an approval
   * and an export prompt, a retry beside a new push) would each find no Quote and create one, or interleave their
   * row replacements.
   */
  private writeQuote(p: PushQuotePayload, fields: Record<string, unknown>): Promise<{ quoteId: string; verb: string }> {
    const key = p.module === 'Quotes' ? `zoho-quote:${p.recordId}` : `zoho-quote:${p.recordId}:${p.drawingId}`;
    return withAdvisoryLock(this.config.databaseUrl, key, () => this.writeQuoteLocked(p, fields));
  }

  private async writeQuoteLocked(p: PushQuotePayload, fields: Record<string, unknown>): Promise<{ quoteId: string; verb: string }> {
    if (p.module === 'Quotes') {
      await this.replaceItems(p.recordId, fields);
      return { quoteId: p.recordId, verb: 'replaced the items of' };
    }
    const existing = await this.findQuote(p.recordId, p.drawingId);
    if (existing) {
      await this.replaceItems(existing.id, fields);
      await this.quotes.save(p.recordId, p.drawingId, existing.id);
      return { quoteId: existing.id, verb: 'replaced the items of' };
    }
    const quoteId = await this.createQuote(p, await this.subjectOf(p.drawingId), fields);
    await this.quotes.save(p.recordId, p.drawingId, quoteId);
    return { quoteId, verb: 'created' };
  }

  /** Each SKU's Zoho product: remembered, else searched by Product_Code and remembered; else the fallback product. */
  private async productsOf(items: LineItem[], fallback: string | null): Promise<(item: LineItem) => string | null> {
    const skus = [...new Set(items.map((i) => i.sku).filter((s): s is string => typeof s === 'string' && s !== ''))];
    const known = await this.products.findBySkus(skus);
    for (const sku of skus.filter((s) => !known.has(s))) {
      const found = await this.zoho.findProductByCode(sku);
      if (!found) continue;
      await this.products.save(sku, found.id);
      known.set(sku, found.id);
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
  private async createQuote(p: PushQuotePayload, subject: string, fields: Record<string, unknown>): Promise<string> {
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
      return this.zoho.createQuote({ Subject: subject, ...links, ...fields });
    }, this.config.http.retry);
  }

  /** Deletes every row the Quote has (by id) and adds the new ones, in one update; read again before each try. */
  private async replaceItems(quoteId: string, fields: Record<string, unknown>): Promise<void> {
    await withRetries(async () => {
      const quote = await this.zoho.getRecord('Quotes', quoteId);
      if (!quote) throw new PermanentActionError(`Zoho has no Quote ${quoteId}`);
      const old = (Array.isArray(quote.Quoted_Items) ? quote.Quoted_Items : []).flatMap((row) => {
        const id = lookupId(row);
        return id ? [{ id, _delete: null }] : [];
      });
      await this.zoho.updateQuote(quoteId, { ...fields, Quoted_Items: [...old, ...(fields.Quoted_Items as unknown[])] });
    }, this.config.http.retry);
  }

  /** Reads the Quote back: its Grand_Total must be the one computed, else the entry says so. */
  private async checkTotals(quoteId: string, draft: QuoteDraft): Promise<string> {
    const quote = await this.zoho.getRecord('Quotes', quoteId);
    const grand = quote?.Grand_Total;
    if (typeof grand !== 'number' && typeof grand !== 'string') return "; Zoho did not show the Quote's Grand_Total";
    return toCents(grand) === draft.grandTotalCents ? '' : `; Zoho's Grand_Total is ${centsText(toCents(grand))}, not ${centsText(draft.grandTotalCents)}`;
  }
}

/**
 * Whether a Deal at `current` should move to `target`: an empty or earlier stage does; the same or a later one does
 * not. A current stage missing from the pick list (another pipeline's, renamed) is left alone. When the pick list
 * does not place the target (Zoho's fields metadata may leave layout-specific pick lists out), the simpler reading:
 * move unless the Deal is already closed (a stage named `Closed …`).
 */
export function comesBefore(current: string | null, target: string, stages: StageValue[]): boolean {
  if (!current) return true;
  if (current === target) return false;
  const goal = stages.find((s) => s.value === target)?.sequence;
  if (goal === undefined) return !/^closed\b/i.test(current);
  const at = stages.find((s) => s.value === current)?.sequence;
  return at !== undefined && at < goal;
}

/** The start of the Subject of a drawing's Quote, which finds it again. */
export function subjectPrefix(drawingId: string): string {
  return `Drawing ${drawingId} -`;
}

function quoteFields(draft: QuoteDraft): Record<string, unknown> {
  return {
    Quoted_Items: draft.lines.map((line) => ({
      Product_Name: { id: line.productId },
      Quantity: jsonDecimal(line.quantity),
      List_Price: jsonCents(line.listPriceCents),
      Discount: jsonCents(line.discountCents),
      Description: line.description,
    })),
    Discount: jsonCents(draft.discountCents),
    Tax: jsonCents(draft.taxCents),
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
  if (draft.leftOut.length > 0) parts.push(`left out (no Zoho product): ${draft.leftOut.join(', ')}`);
  if (draft.folded.length > 0) parts.push(`in the adjustment (no row possible): ${draft.folded.join(', ')}`);
  return parts.join(', ');
}

/** Zoho refused a row's product (INVALID_DATA on Quoted_Items[…].Product_Name): a product deleted since it was found. */
function refusedProduct(err: unknown): boolean {
  return err instanceof OutboundError && err.status === 400 && /^INVALID_DATA/.test(err.excerpt) && /Product_Name/.test(err.excerpt);
}

function lookupId(value: unknown): string | null {
  if (!value || typeof value !== 'object') return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' && id !== '' ? id : typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : null;
}
