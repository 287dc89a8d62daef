import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Proposal } from '../service-api/service-api.types.js';
import { ReconcileProposalRepository } from './reconcile-proposal.repository.js';

export interface SeenProposal {
  fingerprint: string;
  /** Its place in R3's activity order when last seen: higher is more recent. */
  stamp: number;
}

/**
 * What matters of a proposal for reconciliation. A signed `pdf_url` is taken without its query, whose signature may
 * be renewed on every read; `updated_at` counts when the service sends one.
 */
export function fingerprintOf(proposal: Proposal): string {
  const updatedAt = (proposal as Proposal & { updated_at?: unknown }).updated_at;
  const facts = [
    proposal.project_id,
    proposal.status,
    proposal.total ?? null,
    proposal.approved_option
      ? [proposal.approved_option.id ?? null, proposal.approved_option.drawing_id, proposal.approved_option.drawing_version_id ?? null]
      : null,
    proposal.pdf_url ? proposal.pdf_url.split('?')[0] : null,
    updatedAt ?? null,
  ];
  return createHash('sha256').update(JSON.stringify(facts)).digest('base64url').slice(0, 22);
}

/** What the changes pass last saw of each proposal (kept in `reconcile_proposal`). */
@Injectable()
export class ProposalFingerprints {
  constructor(private readonly proposals: ReconcileProposalRepository) {}

  async get(proposalIds: string[]): Promise<Map<string, SeenProposal>> {
    const rows = await this.proposals.findByProposalIds(proposalIds);
    return new Map(rows.map((r) => [r.proposalId, { fingerprint: r.fingerprint, stamp: r.stamp }]));
  }

  /** Saves proposals seen now, most recent first: each gets a stamp above every stored one, in that order. */
  saveSeen(seen: Array<{ proposal: Proposal; fingerprint: string }>): Promise<void> {
    return this.proposals.saveSeen(seen.map((s) => ({ proposalId: s.proposal.proposal_id, projectId: s.proposal.project_id, fingerprint: s.fingerprint })));
  }
}
