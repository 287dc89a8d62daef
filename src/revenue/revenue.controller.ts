import { Body, ConflictException, Controller, Get, HttpCode, NotFoundException, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiConflictResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminAuditService } from '../actions/admin-audit.service.js';
import { Actor, AdminRoute, RequiresRole } from '../auth/admin-auth.guard.js';
import { ApiPageResponse, idCursor, pageLimit, toPage, type PageOf } from '../common/pagination.js';
import type { AdminActor } from '../config/roles.js';
import type { DriftFilter } from './drift.js';
import { DriftRepository } from './drift.repository.js';
import { BulkDecisionView, DriftFilterDto, DriftListQueryDto, DriftView, driftView, RevenueCheckRequestDto, RevenueSummaryView } from './revenue.dto.js';
import { RevenueSummaryService } from './revenue-summary.service.js';
import { SyncLogRepository } from '../sync-log/sync-log.repository.js';
import { RevenueCheckService } from './revenue-check.service.js';

/** At most this many drifts are healed or accepted by one bulk request; ask again for the rest. */
const BULK_MAX = 500;

@ApiTags('revenue')
@AdminRoute()
@Controller('api/revenue')
export class RevenueController {
  constructor(
    private readonly drifts: DriftRepository,
    private readonly check: RevenueCheckService,
    private readonly audit: AdminAuditService,
    private readonly summary: RevenueSummaryService,
    private readonly syncLog: SyncLogRepository,
  ) {}

  @Get('summary')
  @RequiresRole('viewer')
  @ApiOperation({ summary: 'Per CRM: approved proposals in agreement with the service and drifted, with their totals; the last pass of the check.' })
  @ApiOkResponse({ type: RevenueSummaryView })
  async agreement(): Promise<RevenueSummaryView> {
    const [crms, last] = await Promise.all([this.summary.agreement(), this.syncLog.list({ kind: 'revenue_check', limit: 1 })]);
    const entry = last.items[0];
    return {
      crms: crms.map((c) => ({
        crm: c.crm,
        name: c.crm === 'record' ? 'Zoho CRM' : 'Appointment CRM',
        approved: c.approved,
        approved_amount: c.approvedAmount,
        in_agreement: c.inAgreement,
        in_agreement_amount: c.inAgreementAmount,
        drifted: c.drifted,
        drifted_amount: c.driftedAmount,
        open_drifts: c.openDrifts,
        open_by_kind: c.openByKind,
      })),
      last_check_id: entry?.id ?? null,
      last_check_at: entry ? new Date(entry.finishedAt ?? entry.createdAt).toISOString() : null,
      last_check_detail: entry ? (entry.detail ?? entry.error ?? entry.status) : null,
    };
  }

  @Get('drifts')
  @RequiresRole('viewer')
  @ApiOperation({ summary: 'Revenue drifts, newest first: the service, what crm-sync wrote and the CRM now, side by side.' })
  @ApiPageResponse(DriftView)
  async list(@Query() query: DriftListQueryDto): Promise<PageOf<DriftView>> {
    const limit = pageLimit(query);
    const rows = await this.drifts.list(filterOf(query), limit + 1, idCursor(query));
    return toPage(rows, limit, (r) => r.id, driftView);
  }

  @Post('drifts/heal')
  @RequiresRole('operator')
  @HttpCode(202)
  @ApiOperation({ summary: `Heals the open drifts a filter takes (oldest first, at most ${BULK_MAX}): each writes the service's value again.` })
  @ApiAcceptedResponse({ type: BulkDecisionView })
  async healMany(@Body() body: DriftFilterDto, @Actor() actor: AdminActor): Promise<BulkDecisionView> {
    const ids = await this.drifts.idsOf(filterOf(body ?? {}), ['open'], BULK_MAX);
    const entries: string[] = [];
    for (const id of ids) {
      const drift = await this.drifts.get(id);
      if (drift) entries.push((await this.check.heal(drift, 'admin', actor.name)).id);
    }
    await this.audit.record(actor, { detail: `${ids.length} revenue drift(s) healed`, payload: { drift_ids: ids, entry_ids: entries } });
    return { drift_ids: ids, sync_log_ids: entries };
  }

  @Post('drifts/accept')
  @RequiresRole('operator')
  @HttpCode(200)
  @ApiOperation({ summary: `Accepts the CRM's values of the open drifts a filter takes (oldest first, at most ${BULK_MAX}).` })
  @ApiOkResponse({ type: BulkDecisionView })
  async acceptMany(@Body() body: DriftFilterDto, @Actor() actor: AdminActor): Promise<BulkDecisionView> {
    const ids = await this.drifts.idsOf(filterOf(body ?? {}), ['open'], BULK_MAX);
    const accepted: string[] = [];
    for (const id of ids) if (await this.drifts.accept(id, actor.name)) accepted.push(id);
    await this.audit.record(actor, { detail: `${accepted.length} revenue drift(s) accepted as the CRM holds them`, payload: { drift_ids: accepted } });
    return { drift_ids: accepted, sync_log_ids: [] };
  }

  @Post('drifts/:id/heal')
  @RequiresRole('operator')
  @HttpCode(202)
  @ApiOperation({ summary: "Writes the service's value again through the normal push (sync log, fences, read-back); answers its sync log id." })
  @ApiAcceptedResponse({ description: '`{ "id": "<sync log id>", "status": "queued" }`' })
  @ApiNotFoundResponse({ description: 'No such drift.' })
  async heal(@Param('id') id: string, @Actor() actor: AdminActor): Promise<{ id: string; status: string }> {
    const drift = await this.drifts.get(id);
    if (!drift) throw new NotFoundException({ statusCode: 404, message: `no drift ${id}` });
    const entry = await this.check.heal(drift, 'admin', actor.name);
    await this.audit.record(actor, { detail: `revenue drift ${id} healed (entry ${entry.id})`, payload: { drift_id: id, entry_id: entry.id } });
    return { id: entry.id, status: entry.status };
  }

  @Post('drifts/:id/accept')
  @RequiresRole('operator')
  @HttpCode(200)
  @ApiOperation({ summary: "Accepts the CRM's value: the difference raises nothing again until the service's value changes." })
  @ApiOkResponse({ type: DriftView })
  @ApiNotFoundResponse({ description: 'No such drift.' })
  @ApiConflictResponse({ description: 'The drift is not open.' })
  async accept(@Param('id') id: string, @Actor() actor: AdminActor): Promise<DriftView> {
    const drift = await this.drifts.get(id);
    if (!drift) throw new NotFoundException({ statusCode: 404, message: `no drift ${id}` });
    const accepted = await this.check.accept(drift, actor.name);
    if (!accepted) throw new ConflictException({ statusCode: 409, message: `drift ${id} is ${drift.state}, not open` });
    await this.audit.record(actor, { detail: `revenue drift ${id} accepted as the CRM holds it`, payload: { drift_id: id } });
    return driftView(accepted);
  }

  @Post('check')
  @RequiresRole('operator')
  @HttpCode(202)
  @ApiOperation({ summary: 'Starts a pass of the revenue check now (`scope`: `changes`, the default, or `full`); answers its sync log id.' })
  @ApiAcceptedResponse({ description: '`{ "id": "<sync log id>", "status": "queued" | "running" }`' })
  async start(@Body() body: RevenueCheckRequestDto, @Actor() actor: AdminActor): Promise<{ id: string; status: string }> {
    const scope = body?.scope ?? 'changes';
    const entry = await this.check.start('admin', scope, actor.name);
    await this.audit.record(actor, { detail: `${scope} revenue check requested (entry ${entry.id})`, payload: { entry_id: entry.id, scope } });
    return { id: entry.id, status: entry.status };
  }
}

function filterOf(query: DriftFilterDto): DriftFilter {
  return { crm: query.crm, kind: query.kind, state: query.state, projectId: query.project_id };
}
