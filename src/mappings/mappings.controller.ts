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
  ApiPayloadTooLargeResponse,
  ApiBody,
  ApiConflictResponse,
  ApiConsumes,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
  ApiUnprocessableEntityResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { Actor, AdminRoute, RequiresRole } from '../auth/admin-auth.guard.js';
import { AdminAuditService } from '../actions/admin-audit.service.js';
import type { AdminActor } from '../config/roles.js';
import { ApiPageResponse, idCursor, pageLimit, type PageOf } from '../common/pagination.js';
import { ParseIdPipe } from '../common/parse-id.pipe.js';
import type { FieldError } from '../common/validation-errors.js';
import { MappingInputDto, parseMappingInput, type MappingInput } from './dto/mapping-input.dto.js';
import type { Mapping } from './mapping.row.js';
import { MappingsQueryDto } from './dto/mappings-query.dto.js';
import { MappingImportService, type ImportResult } from './mapping-import.service.js';
import { MappingNamesService } from './mapping-names.service.js';
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
    private readonly audit: AdminAuditService,
    private readonly names: MappingNamesService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Mappings, newest first; filter by CRM, status and project.' })
  @ApiPageResponse(MappingView)
  @ApiBadRequestResponse({ description: 'A filter or the paging is invalid; the message names the field.' })
  async list(@Query() query: MappingsQueryDto): Promise<PageOf<MappingView>> {
    const page = await this.mappings.list({
      crm: query.crm,
      status: query.status,
      projectId: query.project_id,
      limit: pageLimit(query),
      cursor: idCursor(query),
    });
    const views = await this.names.views(page.items);
    return { items: views, next_cursor: page.nextCursor };
  }

  @Post()
  @ApiOperation({
    summary: 'Creates one mapping, or many as `{ "items": [...] }`.',
    description:
      'One object: 201 with the mapping, 409 naming the mapping in the way, 400 naming the field. A batch is not one ' +
      'transaction: every item is created or refused on its own, and the answer is 200 when every item was created, ' +
      '207 when some were refused, 422 when all were, each with `{ created, errors, items }`, per item ' +
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
  @ApiOkResponse({ description: 'Per-item results (batch): every item created.' })
  @ApiResponse({ status: 207, description: 'Per-item results (batch): some items refused.' })
  @ApiUnprocessableEntityResponse({ description: 'Per-item results (batch): every item refused.' })
  @ApiConflictResponse({ description: 'An existing mapping has this appointment, record, or project; the answer names it.' })
  @ApiBadRequestResponse({ description: 'Invalid input; the message names the field.' })
  @RequiresRole('operator')
  async create(
    @Body() body: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Actor() actor: AdminActor,
  ): Promise<MappingView | { created: number; errors: number; items: BatchItemResult[] }> {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw bad('the body must be a mapping object or { "items": [...] }');
    }
    if ('items' in body) {
      const answer = await this.createBatch(body as Record<string, unknown>);
      reply.status(answer.errors === 0 ? 200 : answer.created === 0 ? 422 : 207);
      if (answer.created > 0) {
        const ids = answer.items.flatMap((item) => (item.mapping ? [item.mapping.id] : []));
        await this.audit.record(actor, {
          detail: `${answer.created} mapping(s) created in a batch of ${answer.items.length}`,
          payload: { mapping_ids: ids.slice(0, 1000), refused: answer.errors },
        });
      }
      return answer;
    }
    const parsed = parseMappingInput(body);
    if (!parsed.ok) throw bad(parsed.error, parsed.errors);
    const result = await this.mappings.create(parsed.input);
    if (result.status === 'conflict') {
      throw new ConflictException({
        statusCode: 409,
        message: result.error,
        error: 'Conflict',
        code: 'already_mapped',
        field: clashingField(parsed.input, result.existing),
        existing: result.existing ? mappingView(result.existing) : null,
      });
    }
    await this.audit.record(actor, { detail: `mapping ${result.mapping.id} created (${describe(result.mapping)})`, ...auditFields(result.mapping) });
    return this.names.answer(result.mapping);
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
  @ApiPayloadTooLargeResponse({
    description: 'Over MAPPING_IMPORT_MAX_BYTES, MAPPING_IMPORT_MAX_ROWS or MAPPING_IMPORT_MAX_RECORD_BYTES; the message names the limit.',
  })
  @RequiresRole('operator')
  async import(@Req() request: FastifyRequest, @Actor() actor: AdminActor): Promise<ImportResult> {
    const body = request.body;
    if (!(body instanceof Readable)) throw new UnsupportedMediaTypeException('send the CSV with Content-Type: text/csv');
    const declared = Number(request.headers['content-length']);
    const result = await this.imports.importCsv(body, Number.isFinite(declared) ? declared : undefined);
    await this.audit.record(actor, {
      detail: `CSV import: ${result.created} mapping(s) created, ${result.errors} row(s) refused`,
      payload: { created: result.created, errors: result.errors },
    });
    return result;
  }

  @Post('associate')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Starts associating every pending mapping with the service now.',
    description: 'Appointment mappings go in A2 chunks of at most 100, record mappings one C1 call each; answers the sync log entries created.',
  })
  @ApiAcceptedResponse({ description: '`{ sync_log_ids: string[] }`' })
  @RequiresRole('operator')
  async associate(@Actor() actor: AdminActor): Promise<{ sync_log_ids: string[] }> {
    const entries = await this.mappings.associatePending('admin', { actor: actor.name });
    // The actions carry the actor; a request that found nothing pending is recorded on its own.
    if (entries.length === 0) await this.audit.record(actor, { detail: 'association requested: no pending mapping to associate' });
    return { sync_log_ids: entries.map((e) => String(e.id)) };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: "Removes a mapping (an association the service already made stays on the service's side)." })
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiNotFoundResponse({ description: 'No such mapping.' })
  @RequiresRole('operator')
  async remove(@Param('id', new ParseIdPipe()) id: string, @Actor() actor: AdminActor): Promise<void> {
    if (!(await this.mappings.remove(id))) throw new NotFoundException({ statusCode: 404, message: `mapping ${id} not found`, error: 'Not Found' });
    await this.audit.record(actor, { detail: `mapping ${id} removed`, payload: { mapping_id: id } });
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
    const shown = outcomes.flatMap((o) => (o.status === 'created' ? [o.mapping] : o.existing ? [o.existing] : []));
    const views = new Map((await this.names.answers(shown)).map((v) => [v.id, v]));
    outcomes.forEach((outcome, i) => {
      const index = valid[i].index;
      results[index] =
        outcome.status === 'created'
          ? { index, status: 'created', mapping: views.get(String(outcome.mapping.id))! }
          : { index, status: 'error', error: outcome.error, ...(outcome.existing ? { existing: views.get(String(outcome.existing.id))! } : {}) };
    });
    const errors = results.filter((r) => r.status === 'error').length;
    return { created: results.length - errors, errors, items: results };
  }
}

const describe = (m: Mapping): string =>
  `project ${m.projectId} to ${m.crm === 'appointment' ? `appointment ${m.appointmentId}` : `${m.recordCrmModule}/${m.recordCrmRecordId}`}`;

const auditFields = (m: Mapping) => ({
  crm: m.crm,
  projectId: m.projectId,
  target: m.crm === 'appointment' ? m.appointmentId : `${m.recordCrmModule}/${m.recordCrmRecordId}`,
  payload: { mapping_id: m.id },
});

function bad(message: string, errors?: FieldError[]): BadRequestException {
  return new BadRequestException({ statusCode: 400, message, error: 'Bad Request', ...(errors ? { errors } : {}) });
}

/** Which field of the new mapping an existing one holds already (the console marks it); null when none is left. */
function clashingField(input: MappingInput, existing: Mapping | null): 'appointment_id' | 'record_crm_record_id' | 'project_id' | null {
  if (!existing) return null;
  if (input.crm === 'appointment' && input.appointmentId === existing.appointmentId) return 'appointment_id';
  if (input.crm === 'record' && input.recordCrmModule === existing.recordCrmModule && input.recordCrmRecordId === existing.recordCrmRecordId) {
    return 'record_crm_record_id';
  }
  return 'project_id';
}
