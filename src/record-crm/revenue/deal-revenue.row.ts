/** What crm-sync last wrote to a Deal (`update_deal`): shown in the project view. */
export interface DealRevenueRow {
  dealId: string;
  projectId: string | null;
  proposalId: string;
  amount: string | null;
  stage: string | null;
  closingDate: string | null;
  entryId: string;
  writtenAt: Date;
}
