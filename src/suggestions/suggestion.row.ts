import type { MatchKey } from '../crm-settings/automation-settings.js';
import type { MappingCrm } from '../mappings/mapping.row.js';
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
  /** Where an appointment opens in its CRM, when its CRM said (a Zoho record's is made when shown). */
  web_url?: string;
}

/** Suggested mappings of one project in one CRM (one row per project and CRM, ever). */
export interface MappingSuggestion {
  id: string;
  projectId: string;
  crm: MappingCrm;
  status: SuggestionStatus;
  candidates: Candidate[];

  /** What the last look was made of (see match-keys.ts `lookedFor`). */
  lookedFor: string;
  mappingId: string | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}
