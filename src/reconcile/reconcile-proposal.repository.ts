import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';

/** What the changes pass last saw of a proposal. */
export interface SeenProposalRow {
  proposalId: string;
  fingerprint: string;
  /** Its place in R3's activity order when last seen: higher is more recent. */
  stamp: number;
}

/** A proposal seen now, to be saved. */
export interface ProposalSighting {
  proposalId: string;
  projectId: string;
  fingerprint: string;
}

/** Every statement on `reconcile_proposal`. */
@Injectable()
export class ReconcileProposalRepository {
  constructor(private readonly database: DatabaseService) {}

  async findByProposalIds(proposalIds: string[]): Promise<SeenProposalRow[]> {
    const rows = await this.database.query<Array<{ proposal_id: string; fingerprint: string; stamp: string }>>(
      `SELECT proposal_id, fingerprint, stamp FROM reconcile_proposal WHERE proposal_id = ANY($1::text[])`,
      [proposalIds],
    );
    return rows.map((r) => ({ proposalId: r.proposal_id, fingerprint: r.fingerprint, stamp: Number(r.stamp) }));
  }

  /** Saves proposals seen now, most recent first: each gets a stamp above every stored one, in that order. */
  async saveSeen(seen: ProposalSighting[]): Promise<void> {
    if (seen.length === 0) return;
    await this.database.query(
      `WITH top AS (SELECT COALESCE(max(stamp), 0) AS stamp FROM reconcile_proposal)
       INSERT INTO reconcile_proposal (proposal_id, project_id, fingerprint, stamp, seen_at)
       SELECT s.proposal_id, s.project_id, s.fingerprint, top.stamp + $4::int - s.n + 1, now()
         FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS s (proposal_id, project_id, fingerprint, n), top
       ON CONFLICT (proposal_id) DO UPDATE
         SET project_id = EXCLUDED.project_id, fingerprint = EXCLUDED.fingerprint, stamp = EXCLUDED.stamp, seen_at = EXCLUDED.seen_at`,
      [seen.map((s) => s.proposalId), seen.map((s) => s.projectId), seen.map((s) => s.fingerprint), seen.length],
    );
  }
}
