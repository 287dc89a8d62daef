import { Column, Entity, PrimaryColumn } from 'typeorm';

/** What crm-sync last wrote to a Deal (`update_deal`): shown in the project view. */
@Entity('deal_revenue')
export class DealRevenueRow {
  @PrimaryColumn({ name: 'deal_id', type: 'text' })
  dealId: string;

  @Column({ name: 'project_id', type: 'text', nullable: true })
  projectId: string | null;

  @Column({ name: 'proposal_id', type: 'text' })
  proposalId: string;

  @Column({ name: 'amount', type: 'text', nullable: true })
  amount: string | null;

  @Column({ name: 'stage', type: 'text', nullable: true })
  stage: string | null;

  @Column({ name: 'closing_date', type: 'text', nullable: true })
  closingDate: string | null;

  @Column({ name: 'entry_id', type: 'bigint' })
  entryId: string;

  @Column({ name: 'written_at', type: 'timestamptz' })
  writtenAt: Date;
}
