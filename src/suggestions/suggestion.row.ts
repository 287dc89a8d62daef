import type { MatchKey } from '../crm-settings/automation-settings.js';
import type { MappingCrm } from '../mappings/mapping.row.js';
import type { RecordModule } from '../service-api/service-api.types.js';

/**
 * `none`: looked, nothing found; `open`: candidates waiting for a person; `accepted`, `dismissed`: decided for good;
 * `closed`: the project was mapped meanwhile.
 */
export const SUGGESTION_STATUSES = ['none', 'open', 'accepted', 'dismissed', 'closed'] as const;
export type SuggestionStatus = (typeof SUGGESTION_STATUSES)[number];

/** A CRM record that could be the project's, and what matched. */
export interface Candidate {
  id: string;
  /** The Zoho module; null for an appointment. */
  module: RecordModule | null;
  name: string | null;
  matched_on: MatchKey[];
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
