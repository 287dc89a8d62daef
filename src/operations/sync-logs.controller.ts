import { Controller, Get, HttpCode, NotFoundException, ConflictException, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBadRequestResponse, ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ActionRecorderService } from '../actions/action-recorder.service.js';
import { CallTraceRepository } from '../sync-log/call-trace.repository.js';
import { SyncLogRepository } from '../sync-log/sync-log.repository.js';
import { Actor, AdminRoute, RequiresRole } from '../auth/admin-auth.guard.js';
import { AdminAuditService } from '../actions/admin-audit.service.js';
import type { AdminActor } from '../config/roles.js';
import { ApiPageResponse, idCursor, pageLimit, pageOf, type PageOf } from '../common/pagination.js';
import { ParseIdPipe } from '../common/parse-id.pipe.js';
import { viewFor } from '../http/redact-urls.js';
import { ProjectsService } from '../projects/projects.service.js';
import { SyncLogQueryDto } from './sync-logs.dto.js';
import { CrmLinksService } from '../mappings/crm-links.service.js';
import { TargetNamesService } from '../mappings/target-names.service.js';
import { syncLogCallView, SyncLogEntryDetailView, syncLogEntryView, SyncLogEntryView, SyncLogFilterChoicesView } from './sync-log.view.js';
import { ACTION_KIND_NAMES } from '../domain/actions.js';
import { SYNC_STATUSES } from '../sync-log/sync-log.row.js';

@ApiTags('sync-logs')
@AdminRoute()
@Controller('api/sync-logs')
export class SyncLogsController {
  constructor(
    private readonly syncLog: SyncLogRepository,
    private readonly actions: ActionRecorderService,
    private readonly audit: AdminAuditService,
    private readonly callTraces: CallTraceRepository,
    private readonly projects: ProjectsService,
    private readonly targetNames: TargetNamesService,
    private readonly links: CrmLinksService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'The sync log, newest first; filter by status, kind, project, CRM and creation time.' })
  @ApiPageResponse(SyncLogEntryView)
  @ApiBadRequestResponse({ description: 'A filter or the paging is invalid; the message names the field.' })
  async list(@Query() query: SyncLogQueryDto, @Actor() actor: AdminActor): Promise<PageOf<SyncLogEntryView>> {
    const page = await this.syncLog.list({
      status: query.status,
      kind: query.kind,
      projectId: query.project_id,
      crm: query.crm,
      since: query.since ? new Date(query.since) : undefined,
      limit: pageLimit(query),
      cursor: idCursor(query),
    });
    const [names, targets, links] = await Promise.all([
      this.projects.names(page.items.map((e) => e.projectId)),
      this.targetNames.namesOf(page.items),
      this.links.linksOf(page.items),
    ]);
    return viewFor(
      actor,
      pageOf(page.items, page.nextCursor, (e) => syncLogEntryView(e, names, targets, links)),
    );
  }

  @Get('filters')
  @ApiOperation({ summary: 'The values of the Kind and Status filters: every action kind and every status.' })
  @ApiOkResponse({ type: SyncLogFilterChoicesView })
  filters(): SyncLogFilterChoicesView {
    return { kinds: [...ACTION_KIND_NAMES], statuses: [...SYNC_STATUSES] };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One entry with its error, attempts and the outbound HTTP calls of every run, in order.' })
  @ApiOkResponse({ type: SyncLogEntryDetailView })
  @ApiNotFoundResponse({ description: 'No such entry.' })
  async get(@Param('id', new ParseIdPipe()) id: string, @Actor() actor: AdminActor): Promise<SyncLogEntryDetailView> {
    const entry = await this.syncLog.get(id);
    if (!entry) throw new NotFoundException({ statusCode: 404, message: `sync log entry ${id} not found`, error: 'Not Found' });
    const calls = await this.callTraces.forEntry(id);
    const [names, targets, links] = await Promise.all([this.projects.names([entry.projectId]), this.targetNames.namesOf([entry]), this.links.linksOf([entry])]);
    return viewFor(actor, { ...syncLogEntryView(entry, names, targets, links), calls: calls.map(syncLogCallView) });
  }

  @Post(':id/retry')
  @RequiresRole('operator')
  @HttpCode(202)
  @ApiOperation({ summary: 'Runs a failed action again; only a failed entry can be retried.' })
  @ApiAcceptedResponse({ type: SyncLogEntryView, description: 'The entry, queued again.' })
  @ApiNotFoundResponse({ description: 'No such entry.' })
  @ApiConflictResponse({ description: 'The entry is not failed; the answer names its status.' })
  async retry(@Param('id', new ParseIdPipe()) id: string, @Actor() actor: AdminActor): Promise<SyncLogEntryView> {
    // Read first so that a refusal can name the entry's current status.
    const entry = await this.syncLog.get(id);
    if (!entry) throw new NotFoundException({ statusCode: 404, message: `sync log entry ${id} not found`, error: 'Not Found' });
    if (entry.status !== 'failed') {
      throw new ConflictException({
        statusCode: 409,
        message: `only a failed entry can be retried; entry ${id} is ${entry.status}`,
        error: 'Conflict',
        status: entry.status,
      });
    }
    const requeued = await this.actions.retry(id);
    if (!requeued) throw new ConflictException({ statusCode: 409, message: `entry ${id} was retried meanwhile`, error: 'Conflict' });
    // The entry stays the action's record; who retried it is an entry of its own.
    await this.audit.record(actor, {
      detail: `retried sync log entry ${id} (${entry.kind})`,
      crm: entry.crm,
      projectId: entry.projectId,
      target: entry.target,
      payload: { entry_id: id },
    });
    return viewFor(actor, syncLogEntryView(requeued));
  }
}
