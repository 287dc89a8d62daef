import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The Quote crm-sync made for a drawing on a Deal, once its create was answered: looked at first on the next push
 * (Zoho's search may not show a Quote made a moment ago). A create whose answer was lost is found by its Subject.
 */
@Entity('zoho_quote')
export class ZohoQuoteRow {
  @PrimaryColumn({ name: 'deal_id', type: 'text' })
  dealId: string;

  @PrimaryColumn({ name: 'drawing_id', type: 'text' })
  drawingId: string;

  @Column({ name: 'quote_id', type: 'text' })
  quoteId: string;

  @Column({ name: 'pushed_at', type: 'timestamptz' })
  pushedAt: Date;
}
