import { Injectable } from '@nestjs/common';
import type { CrmName } from '../domain/actions.js';
import { centsText, toCents } from '../record-crm/revenue/money.js';
import { SyncLogRepository } from '../sync-log/sync-log.repository.js';
import { DriftRepository } from './drift.repository.js';

const KINDS: Record<CrmName, string[]> = {
  appointment: ['push_proposal_pdf', 'push_line_items', 'set_status'],
  record: ['update_deal', 'push_quote'],
};

/** One CRM's approved proposals, in agreement with the service or drifted, with their approved totals. */
export interface RevenueAgreement {
  crm: CrmName;
  approved: number;
  approvedAmount: string;
  inAgreement: number;
  inAgreementAmount: string;
  drifted: number;
  driftedAmount: string;
  openDrifts: number;
  openByKind: Record<string, number>;
}

/**
 * How much of the approved revenue each CRM holds as the service approved it: each record's latest approved proposal
 * (with its approved total; a change order replaces the proposal it changes), less those with an open drift. Read from
 * Postgres only.
 */
@Injectable()
export class RevenueSummaryService {
  constructor(
    private readonly syncLog: SyncLogRepository,
    private readonly drifts: DriftRepository,
  ) {}

  async agreement(only: CrmName | null = null, since: Date | null = null): Promise<RevenueAgreement[]> {
    const open = await this.drifts.open();
    const result: RevenueAgreement[] = [];
    for (const crm of only ? [only] : (['appointment', 'record'] as const)) {
      const amounts = new Map<string, bigint>();
      for (const fact of await this.syncLog.revenueFacts(crm, KINDS[crm], null)) {
        if (fact.role !== 'approval' || (since && fact.createdAt < since)) continue;
        const proposal = fact.proposalId;
        if (!proposal) continue;
        const amount = typeof fact.payload.amount === 'string' && fact.payload.amount !== '' ? fact.payload.amount : null;
        if (!amounts.has(proposal) || amount !== null) amounts.set(proposal, amount === null ? (amounts.get(proposal) ?? 0n) : toCents(amount));
      }
      const mine = open.filter((d) => d.crm === crm);
      const drifted = new Set(mine.map((d) => d.proposalId).filter((p) => amounts.has(p)));
      const sum = (keep: (proposal: string) => boolean) => centsText([...amounts].filter(([p]) => keep(p)).reduce((a, [, c]) => a + c, 0n));
      const openByKind: Record<string, number> = {};
      for (const d of mine) openByKind[d.kind] = (openByKind[d.kind] ?? 0) + 1;
      result.push({
        crm,
        approved: amounts.size,
        approvedAmount: sum(() => true),
        inAgreement: amounts.size - drifted.size,
        inAgreementAmount: sum((p) => !drifted.has(p)),
        drifted: drifted.size,
        driftedAmount: sum((p) => drifted.has(p)),
        openDrifts: mine.length,
        openByKind,
      });
    }
    return result;
  }
}
