import {
  BadRequestException,
  Body,
  ConflictException,
  Controller,
  Delete,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  Post,
  Query,
  Req,
  Res,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiConsumes,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { AdminRoute } from '../admin/admin-auth.guard.js';
import { idCursor, pageLimit, pageOf, type PageOf } from '../admin/pagination.js';
import { ParseIdPipe } from '../admin/parse-id.pipe.js';
import { MappingInputDto, parseMappingInput, type MappingInput } from './dto/mapping-input.dto.js';
import { MappingsQueryDto } from './dto/mappings-query.dto.js';
import { MappingImportService, type ImportResult } from './mapping-import.service.js';
import { mappingView, MappingView } from './mapping.view.js';
import { MappingsService } from './mappings.service.js';

/** Items of one `POST /api/mappings` batch; a larger set goes through the CSV import. */
const MAX_BATCH = 10_000;

export interface BatchItemResult {
  index: number;
  status: 'created' | 'error';
  mapping?: MappingView;
  error?: string;
  /** The mapping in the way, for a conflict. */
  existing?: MappingView;
}

@ApiTags('mappings')
@AdminRoute()
@ApiExtraModels(MappingInputDto, MappingView)
@Controller('api/mappings')
export class MappingsController {
  constructor(
    private readonly mappings: MappingsService,
    private readonly imports: MappingImportService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Mappings, newest first; filter by CRM, status and project.' })
  @ApiOkResponse({ description: '`{ items: Mapping[], next_cursor: string | null }`' })
  @ApiBadRequestResponse({ description: 'A filter or the paging is invalid; the message names the field.' })
  async list(@Query() query: MappingsQueryDto): Promise<PageOf<MappingView>> {
    const page = await this.mappings.list({
      crm: query.crm,
      status: query.status,
      projectId: query.project_id,
      limit: pageLimit(query),
      cursor: idCursor(query),
    });
    return pageOf(page.items, page.nextCursor, mappingView);
  }

  @Post()
  @ApiOperation({
    summary: 'Creates one mapping, or many as `{ "items": [...] }`.',
    description:
      'One object: 201 with the mapping, 409 naming the mapping in the way, 400 naming the field. A batch is not one ' +
      'transaction: every item is created or refused on its own, and the answer (200) gives per item ' +
      '`{ index, status: "created" | "error", mapping?, error?, existing? }`. Ids may be strings or JSON numbers.',
  })
  @ApiBody({
    schema: {
      oneOf: [
        { $ref: getSchemaPath(MappingInputDto) },
        { type: 'object', required: ['items'], properties: { items: { type: 'array', maxItems: MAX_BATCH, items: { $ref: getSchemaPath(MappingInputDto) } } } },
      ],
    },
  })
  @ApiCreatedResponse({ type: MappingView, description: 'The created mapping (single object).' })
  @ApiOkResponse({ description: 'Per-item results (batch).' })
  @ApiConflictResponse({ description: 'An existing mapping has this appointment, record, or project; the answer names it.' })
  @ApiBadRequestResponse({ description: 'Invalid input; the message names the field.' })
  async create(
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<MappingView | { created: number; errors: number; items: BatchItemResult[] }> {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw bad('the body must be a mapping object or { "items": [...] }');
    }
    if ('items' in body) {
      reply.status(200);
      return this.createBatch(body as Record<string, unknown>);
    }
    const parsed = parseMappingInput(body);
    if (!parsed.ok) throw bad(parsed.error);
    const result = await this.mappings.create(parsed.input);
    if (result.status === 'conflict') {
      throw new ConflictException({
        statusCode: 409,
        message: result.error,
        error: 'Conflict',
        existing: result.existing ? mappingView(result.existing) : null,
      });
    }
    return mappingView(result.mapping);
  }

  @Post('import')
  @HttpCode(200)
  @ApiConsumes('text/csv')
  @ApiOperation({
    summary: 'Imports mappings from CSV (streamed).',
    description:
      'Header row `crm,appointment_id,record_crm_module,record_crm_record_id,project_id` (400 when missing or wrong). ' +
      'Good rows are created, bad ones refused; the answer gives per row `{ line, status: "created" | "error", error, mapping_id }`, ' +
      '`line` being the physical line where the row starts (the header is line 1). Blank lines are passed over.',
  })
  @ApiBody({
    schema: { type: 'string', example: 'crm,appointment_id,record_crm_module,record_crm_record_id,project_id\nappointment,APT-1,,,36029621652695017\n' },
  })
  @ApiOkResponse({ description: '`{ created, errors, items: [{ line, status, error, mapping_id }] }`' })
  @ApiBadRequestResponse({ description: 'No header row, or a wrong one.' })
  async import(@Req() request: FastifyRequest): Promise<ImportResult> {
    const body = request.body;
    if (!(body instanceof Readable)) throw new UnsupportedMediaTypeException('send the CSV with Content-Type: text/csv');
    return this.imports.importCsv(body);
  }

  @Post('associate')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Starts associating every pending mapping with the service now.',
    description: 'Appointment mappings go in A2 chunks of at most 100, record mappings one C1 call each; answers the sync log entries created.',
  })
  @ApiAcceptedResponse({ description: '`{ sync_log_ids: string[] }`' })
  async associate(): Promise<{ sync_log_ids: string[] }> {
    const entries = await this.mappings.associatePending('admin');
    return { sync_log_ids: entries.map((e) => String(e.id)) };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: "Removes a mapping (an association the service already made stays on the service's side)." })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiNotFoundResponse({ description: 'No such mapping.' })
  async remove(@Param('id', new ParseIdPipe()) id: string): Promise<void> {
    if (!(await this.mappings.remove(id))) throw new NotFoundException({ statusCode: 404, message: `mapping ${id} not found`, error: 'Not Found' });
  }

  private async createBatch(body: Record<string, unknown>): Promise<{ created: number; errors: number; items: BatchItemResult[] }> {
    const extra = Object.keys(body).filter((k) => k !== 'items');
    if (extra.length > 0) throw bad(`a batch is { "items": [...] } only; unknown field ${extra[0]}`);
    const items = body.items;
    if (!Array.isArray(items) || items.length === 0 || items.length > MAX_BATCH) throw bad(`items must be a list of 1 to ${MAX_BATCH} mappings`);
    const results: BatchItemResult[] = [];
    const valid: Array<{ index: number; input: MappingInput }> = [];
    items.forEach((item, index) => {
      const parsed = parseMappingInput(item);
      if (parsed.ok) valid.push({ index, input: parsed.input });
      else results[index] = { index, status: 'error', error: `items[${index}]: ${parsed.error}` };
    });
    const outcomes = await this.mappings.createMany(valid.map((v) => v.input));
    outcomes.forEach((outcome, i) => {
      const index = valid[i].index;
      results[index] =
        outcome.status === 'created'
          ? { index, status: 'created', mapping: mappingView(outcome.mapping) }
          : { index, status: 'error', error: outcome.error, ...(outcome.existing ? { existing: mappingView(outcome.existing) } : {}) };
    });
    const errors = results.filter((r) => r.status === 'error').length;
    return { created: results.length - errors, errors, items: results };
  }
}

function bad(message: string): BadRequestException {
  return new BadRequestException({ statusCode: 400, message, error: 'Bad Request' });
}
