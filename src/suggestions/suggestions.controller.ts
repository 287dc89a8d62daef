import {
  BadRequestException,
  Body,
  ConflictException,
  Controller,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  Post,
  Query,
  ServiceUnavailableException,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Actor, AdminRoute, RequiresRole } from '../auth/admin-auth.guard.js';
import { ApiPageResponse, idCursor, pageLimit, type PageOf } from '../common/pagination.js';
import { ParseIdPipe } from '../common/parse-id.pipe.js';
import { OutboundError } from '../http/outbound-error.js';
import type { AdminActor } from '../config/roles.js';
import { CrmLinksService } from '../mappings/crm-links.service.js';
import { MappingNamesService } from '../mappings/mapping-names.service.js';
import { MappingView } from '../mappings/mapping.view.js';
import { ProjectsService } from '../projects/projects.service.js';
import { AdminAuditService } from '../actions/admin-audit.service.js';
import { AcceptSuggestionDto, candidateTarget, SuggestionsQueryDto, suggestionView, SuggestionView } from './suggestion.view.js';
import { describeCandidate, SuggestionsService } from './suggestions.service.js';

@ApiTags('suggestions')
@AdminRoute()
@Controller('api/suggestions')
export class SuggestionsController {
  constructor(
    private readonly suggestions: SuggestionsService,
    private readonly projects: ProjectsService,
    private readonly names: MappingNamesService,
    private readonly audit: AdminAuditService,
    private readonly links: CrmLinksService,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Suggested mappings, newest first (open ones by default).',
    description: 'Open suggestions whose project was mapped meanwhile (by anyone) are closed first, so none is listed open.',
  })
  @ApiPageResponse(SuggestionView)
  async list(@Query() query: SuggestionsQueryDto): Promise<PageOf<SuggestionView>> {
    const limit = pageLimit(query);
    const rows = await this.suggestions.list({ status: query.status ?? 'open', limit: limit + 1, cursor: idCursor(query) });
    const items = rows.slice(0, limit);
    const [names, links] = await Promise.all([
      this.projects.names(items.map((s) => s.projectId)),
      this.links.linksOf(items.flatMap((s) => s.candidates.map((c) => candidateTarget(s.crm, c)))),
    ]);
    return { items: items.map((s) => suggestionView(s, names, links)), next_cursor: rows.length > limit ? items[items.length - 1].id : null };
  }

  @Post(':id/accept')
  @RequiresRole('operator')
  @HttpCode(201)
  @ApiOperation({ summary: 'Maps the chosen candidate (`{ "candidate": "<id>" }`, optional when there is one) and starts its association.' })
  @ApiCreatedResponse({ type: MappingView, description: 'The mapping made (source `suggestion`).' })
  @ApiBadRequestResponse({ description: 'No candidate named while there are several, or one that is not a candidate.' })
  @ApiNotFoundResponse({ description: 'No such suggestion.' })
  @ApiConflictResponse({
    description:
      'The suggestion is not open, a mapping is in the way (the message names it), or (`code: "changed"`) the project or the record no longer match as found: the suggestion is marked `changed`.',
  })
  @ApiServiceUnavailableResponse({ description: 'The project or the record could not be read again (the service or the CRM away); nothing was mapped.' })
  async accept(@Param('id', new ParseIdPipe()) id: string, @Body() body: AcceptSuggestionDto, @Actor() actor: AdminActor): Promise<MappingView> {
    const outcome = await this.suggestions.accept(id, body?.candidate ?? null, { trigger: 'admin', actor: actor.name }).catch((err: unknown) => {
      if (err instanceof OutboundError) {
        throw new ServiceUnavailableException({ statusCode: 503, message: `not mapped: the project and the record could not be read again: ${err.message}` });
      }
      throw err;
    });
    switch (outcome.kind) {
      case 'changed':
      case 'left_for_review':
        throw new ConflictException({ statusCode: 409, message: `suggestion ${id} not mapped: ${outcome.message}`, error: 'Conflict', code: 'changed' });
      case 'missing':
        throw notFound(id);
      case 'not_open':
        throw new ConflictException({ statusCode: 409, message: `suggestion ${id} is ${outcome.status}, not open`, error: 'Conflict', status: outcome.status });
      case 'bad_candidate':
        throw new BadRequestException({
          statusCode: 400,
          message: outcome.message,
          error: 'Bad Request',
          errors: [{ field: 'candidate', code: 'not_a_candidate', message: outcome.message }],
        });
      case 'conflict':
        throw new ConflictException({ statusCode: 409, message: outcome.message, error: 'Conflict', code: 'already_mapped' });
    }
    await this.audit.record(actor, {
      detail: `suggestion ${id} accepted: mapping ${outcome.mapping.id}, ${describeCandidate(outcome.candidate)}`,
      crm: outcome.mapping.crm,
      projectId: outcome.mapping.projectId,
      target: outcome.candidate.module ? `${outcome.candidate.module}/${outcome.candidate.id}` : outcome.candidate.id,
      payload: { suggestion_id: id, mapping_id: outcome.mapping.id },
    });
    return this.names.answer(outcome.mapping);
  }

  @Post(':id/dismiss')
  @RequiresRole('operator')
  @HttpCode(200)
  @ApiOperation({ summary: 'Closes an open suggestion for good: its project is not suggested in that CRM again.' })
  @ApiOkResponse({ type: SuggestionView })
  @ApiNotFoundResponse({ description: 'No such suggestion.' })
  @ApiConflictResponse({ description: 'The suggestion is not open (nor `changed`).' })
  async dismiss(@Param('id', new ParseIdPipe()) id: string, @Actor() actor: AdminActor): Promise<SuggestionView> {
    const outcome = await this.suggestions.dismiss(id, actor.name);
    if (!outcome) throw notFound(id);
    if ('notOpen' in outcome) {
      throw new ConflictException({ statusCode: 409, message: `suggestion ${id} is ${outcome.notOpen}, not open`, error: 'Conflict', status: outcome.notOpen });
    }
    await this.audit.record(actor, {
      detail: `suggestion ${id} dismissed (project ${outcome.projectId}, ${outcome.crm} CRM)`,
      crm: outcome.crm,
      projectId: outcome.projectId,
      payload: { suggestion_id: id },
    });
    return suggestionView(outcome, await this.projects.names([outcome.projectId]));
  }
}

const notFound = (id: string) => new NotFoundException({ statusCode: 404, message: `suggestion ${id} not found`, error: 'Not Found' });
