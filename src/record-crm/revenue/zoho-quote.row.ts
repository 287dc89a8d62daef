/**
 * The Quote crm-sync made for a drawing on a Deal, once its create was answered: looked at first on the next push
 * (Zoho's search may not show a Quote made a moment ago). A create whose answer was lost is found by its Subject,
 * once Zoho would have applied it: `createSentAt` says when the last create went out unanswered (`quoteId` null while
 * the first one is under way).
 */
export interface ZohoQuoteRow {
  dealId: string;
  drawingId: string;
  quoteId: string | null;
  pushedAt: Date;
  createSentAt: Date | null;
}
