import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DatabaseService } from '../database/database.service.js';
import type { Proposal } from '../service-api/service-api.types.js';

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

/** The `reconcile_proposal` table: what the changes pass last saw of each proposal. */
@Injectable()
export class ProposalFingerprints {
  constructor(private readonly database: DatabaseService) {}

  async get(proposalIds: string[]): Promise<Map<string, SeenProposal>> {
    const rows: Array<{ proposal_id: string; fingerprint: string; stamp: string }> = await this.database.query(
      `SELECT proposal_id, fingerprint, stamp FROM reconcile_proposal WHERE proposal_id = ANY($1::text[])`,
      [proposalIds],
    );
    return new Map(rows.map((r) => [r.proposal_id, { fingerprint: r.fingerprint, stamp: Number(r.stamp) }]));
  }

  /** Saves proposals seen now, most recent first: each gets a stamp above every stored one, in that order. */
  async saveSeen(seen: Array<{ proposal: Proposal; fingerprint: string }>): Promise<void> {
    if (seen.length === 0) return;
    await this.database.query(
      `WITH top AS (SELECT COALESCE(max(stamp), 0) AS stamp FROM reconcile_proposal)
       INSERT INTO reconcile_proposal (proposal_id, project_id, fingerprint, stamp, seen_at)
       SELECT s.proposal_id, s.project_id, s.fingerprint, top.stamp + $4::int - s.n + 1, now()
         FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS s (proposal_id, project_id, fingerprint, n), top
       ON CONFLICT (proposal_id) DO UPDATE
         SET project_id = EXCLUDED.project_id, fingerprint = EXCLUDED.fingerprint, stamp = EXCLUDED.stamp, seen_at = EXCLUDED.seen_at`,
      [seen.map((s) => s.proposal.proposal_id), seen.map((s) => s.proposal.project_id), seen.map((s) => s.fingerprint), seen.length],
    );
  }
}
