import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { MatchKey } from '../crm-settings/automation-settings.js';
import type { MappingCrm } from '../mappings/mapping.entity.js';
import type { RecordModule } from '../service-api/service-api.types.js';

/**
 * `none`: looked, nothing found; `open`: candidates waiting for a person; `accepted`, `dismissed`: decided for good;
 * `closed`: the project was mapped meanwhile; `changed`: an accept found the project's or the record's values changed
 * since the look (not mapped; the next look of the project opens it again).
 */
export const SUGGESTION_STATUSES = ['none', 'open', 'accepted', 'dismissed', 'closed', 'changed'] as const;
export type SuggestionStatus = (typeof SUGGESTION_STATUSES)[number];

/** A CRM record that could be the project's, and what matched. */
export interface Candidate {
  id: string;
  /** The Zoho module; null for an appointment. */
  module: RecordModule | null;
  name: string | null;
  matched_on: MatchKey[];
  /** Matched keys whose value another project or another record holds too: they never count toward `auto_accept`. */
  shared_on?: MatchKey[];
  /** Whether the record's person and the project's customer have alike names. */
  names_alike?: boolean;
}

/** Suggested mappings of one project in one CRM (one row per project and CRM, ever). */
@Entity('mapping_suggestion')
export class MappingSuggestion {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ type: 'text' })
  crm: MappingCrm;

  @Column({ type: 'text' })
  status: SuggestionStatus;

  @Column({ type: 'jsonb', default: () => `'[]'` })
  candidates: Candidate[];

  /** What the last look was made of (see match-keys.ts `lookedFor`). */
  @Column({ name: 'looked_for', type: 'text' })
  lookedFor: string;

  @Column({ name: 'mapping_id', type: 'bigint', nullable: true })
  mappingId: string | null;

  @Column({ name: 'decided_by', type: 'text', nullable: true })
  decidedBy: string | null;

  @Column({ name: 'decided_at', type: 'timestamptz', nullable: true })
  decidedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
