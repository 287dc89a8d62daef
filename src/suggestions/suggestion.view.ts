import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { MATCH_KEYS } from '../crm-settings/automation-settings.js';
import { PageQueryDto } from '../common/pagination.js';
import { RECORD_MODULES } from '../service-api/service-api.types.js';
import { isStrong } from './match-keys.js';
import { SUGGESTION_STATUSES, type Candidate, type MappingSuggestion, type SuggestionStatus } from './suggestion.row.js';

const LISTED = SUGGESTION_STATUSES.filter((s) => s !== 'none');

export class SuggestionsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: LISTED, default: 'open' })
  @IsOptional()
  @IsIn(LISTED, { message: `status must be one of ${LISTED.join(', ')}` })
  status?: SuggestionStatus;
}

export class AcceptSuggestionDto {
  @ApiPropertyOptional({ description: 'The candidate to map (its id); may be left out when there is only one.', example: '4150868000004357001' })
  @IsOptional()
  @IsString({ message: 'candidate must be a string (the id of one of the candidates)' })
  @MaxLength(200, { message: 'candidate must be at most 200 characters' })
  candidate?: string;
}

export class CandidateView {
  @ApiProperty({ example: '4150868000004357001' }) id: string;
  @ApiProperty({ nullable: true, enum: RECORD_MODULES, description: 'The Zoho module; null for an appointment.' }) module: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'Ana Ruiz' }) name: string | null;
  @ApiProperty({ enum: MATCH_KEYS, isArray: true, description: 'What matched the project.' }) matched_on: string[];
  @ApiProperty({ enum: MATCH_KEYS, isArray: true, description: 'Matched keys another project or record holds too: never enough to map without review.' })
  shared_on: string[];
  @ApiProperty({ description: "Whether the record's person and the project's customer have alike names." }) names_alike: boolean;
  @ApiProperty({ description: 'Whether auto_accept may map it without review (an exact job number, or e-mail and phone with alike names, none shared).' })
  strong: boolean;
  @ApiProperty({ nullable: true, type: String, description: 'Where the record opens in its CRM; null when not known.' }) web_url: string | null;
}

export class SuggestionView {
  @ApiProperty({ example: '7' }) id: string;
  @ApiProperty({ example: '36029621652695017' }) project_id: string;
  @ApiProperty({ nullable: true, type: String, example: 'Ruiz kitchen' }) project_name: string | null;
  @ApiProperty({ enum: ['appointment', 'record'] }) crm: string;
  @ApiProperty({ type: [CandidateView] }) candidates: CandidateView[];
  @ApiProperty({ enum: LISTED, description: '`closed`: the project was mapped meanwhile; `changed`: an accept found the values changed since the look.' })
  status: string;
  @ApiProperty({ nullable: true, type: String, description: 'The mapping made when accepted.' }) mapping_id: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'Who accepted or dismissed it (null: auto_accept).' }) decided_by: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export function suggestionView(
  s: MappingSuggestion,
  projectNames: ReadonlyMap<string, string>,
  links: ReadonlyMap<string, string> = new Map(),
): SuggestionView {
  return {
    id: s.id,
    project_id: s.projectId,
    project_name: projectNames.get(s.projectId) ?? null,
    crm: s.crm,
    candidates: s.candidates.map((c) => {
      const strength = { matched_on: c.matched_on, shared_on: c.shared_on ?? [], names_alike: c.names_alike === true };
      return {
        id: c.id,
        module: c.module,
        name: c.name,
        ...strength,
        strong: isStrong(strength),
        web_url: c.web_url ?? links.get(candidateTarget(s.crm, c).crm + ':' + candidateTarget(s.crm, c).target) ?? null,
      };
    }),
    status: s.status,
    mapping_id: s.mappingId,
    decided_by: s.decidedBy,
    created_at: new Date(s.createdAt).toISOString(),
    updated_at: new Date(s.updatedAt).toISOString(),
  };
}

/** A candidate as a sync log entry would name it (`crm`, `target`). */
export function candidateTarget(crm: string, c: Pick<Candidate, 'id' | 'module'>): { crm: string; target: string } {
  return { crm, target: c.module ? `${c.module}/${c.id}` : c.id };
}
