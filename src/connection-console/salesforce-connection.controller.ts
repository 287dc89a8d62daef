import { Body, ConflictException, Controller, Get, NotFoundException, Put, Query, Req, Res, UnprocessableEntityException, UseGuards } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiExcludeEndpoint,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnprocessableEntityResponse,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SalesforceOrgsService } from '../appointment-crm/adapters/salesforce/salesforce-orgs.service.js';
import { NEEDS } from '../appointment-crm/adapters/salesforce/salesforce-schema.js';
import {
  describeObject,
  describeProblems,
  describeTurnedOff,
  type DescribedField,
  type SchemaReport,
} from '../appointment-crm/adapters/salesforce/schema-check.js';
import { Actor, AdminRoute, RequiresRole } from '../auth/admin-auth.guard.js';
import { readCookie } from '../auth/session.service.js';
import type { AdminActor } from '../config/roles.js';
import { isSalesforce, type SalesforceAppointmentCrmConnection } from '../config/connection-settings.js';
import { ConnectionsService } from '../connections/connections.service.js';
import { AdminAuditService } from '../actions/admin-audit.service.js';
import { ConnectionViewsService, type ConnectionView } from './connection-views.service.js';
import { SalesforceConnectionDto, SalesforceNamesDto } from './connections.dto.js';
import { OAUTH_BINDING_COOKIE, oauthBindingCookie } from './oauth-binding-cookie.js';
import { sendFailure } from './oauth-callback.controller.js';
import { SALESFORCE_CALLBACK_PATH, SalesforceConnectService } from './salesforce-connect.service.js';
import { SchemaLimitGuard } from './schema-limit.guard.js';

/**
 * The appointment CRM as a Salesforce org (docs/appointment-crm-salesforce.md): Connect through OAuth, the table of
 * needs checked against the org, and names picked from the org's objects and fields.
 */
@ApiTags('connections')
@AdminRoute()
@Controller('api/connections/appointment-crm')
export class SalesforceConnectionController {
  constructor(
    private readonly connections: ConnectionsService,
    private readonly connect: SalesforceConnectService,
    private readonly orgs: SalesforceOrgsService,
    private readonly views: ConnectionViewsService,
    private readonly audit: AdminAuditService,
  ) {}

  @Put('salesforce')
  @ApiOperation({
    summary: "Starts connecting a Salesforce org: answers `{ authorize_url }`, the org's consent page, to open in the same browser.",
    description: `The callback is \`GET ${SALESFORCE_CALLBACK_PATH}\`; the answer sets a short-lived cookie binding the consent to this browser.`,
  })
  @ApiConflictResponse({ description: 'Set in the environment, or no CONNECTIONS_KEY.' })
  async start(
    @Body() body: SalesforceConnectionDto,
    @Actor() actor: AdminActor,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ authorize_url: string; redirect_uri: string }> {
    this.assertEditable();
    const loginUrl = (body.login_url ?? 'https://login.salesforce.com').replace(/\/+$/, '');
    const problem = this.connect.loginUrlProblem(loginUrl);
    if (problem) throw new UnprocessableEntityException({ statusCode: 422, message: problem, field: 'login_url' });
    const saved = await this.connections.get('appointment_crm');
    const same = isSalesforce(saved) && saved.clientId === body.client_id && saved.loginUrl === loginUrl ? saved : null;
    // The saved secret is only ever sent to the login host it was entered for.
    const clientSecret = body.client_secret ?? same?.clientSecret;
    if (!clientSecret)
      throw new UnprocessableEntityException({
        statusCode: 422,
        message: 'client_secret is required for a new Connected App or login_url',
        code: 'required',
        field: 'client_secret',
      });
    const { authorizeUrl, binding } = await this.connect.start(
      {
        loginUrl,
        clientId: body.client_id,
        clientSecret,
        preset: body.preset ?? same?.preset ?? 'improveit360-classic',
        pushes: (body.pushes ?? same?.pushes ?? 'service') as 'service' | 'crm-sync',
        names: same?.names ?? {},
        soldValue: same?.soldValue ?? 'Sold',
      },
      actor.name,
    );
    reply.header('set-cookie', oauthBindingCookie(binding, request.protocol === 'https', 600, SALESFORCE_CALLBACK_PATH)).header('cache-control', 'no-store');
    return { authorize_url: authorizeUrl, redirect_uri: this.connect.redirectUri };
  }

  @Get('schema')
  @RequiresRole('admin')
  @UseGuards(SchemaLimitGuard)
  @ApiOperation({
    summary: "The table of needs: each object and field crm-sync uses, its name, whether the org has it (describe), and the org's fitting fields.",
    description:
      "For admins. Each reading costs the org's daily API allowance 4 to 7 describe calls, so the last one of the connection in effect is answered: read when first asked, and again by each check (Test, and the one every 15 minutes) and after a change of the connection. Within `SEARCH_MAX_PER_USER` a `SEARCH_WINDOW_SECONDS` window per user (counted apart from the searches).",
  })
  @ApiOkResponse({ description: '`{ ok, needs, objects, soldValue, pushes, preset }`: the last reading of the org.' })
  @ApiTooManyRequestsResponse({ description: 'More reads than SEARCH_MAX_PER_USER in the window; `Retry-After` says when to try again.' })
  async schema(): Promise<SchemaReport & { pushes: string; preset: string }> {
    const connection = await this.salesforceConnection();
    const report = await this.orgs.keptSchema(connection);
    return { ...report, pushes: connection.pushes, preset: connection.preset };
  }

  @Get('fields')
  // Each call is a describe of the org's daily API allowance: the picker is the admin's, within the schema's limit.
  @RequiresRole('admin')
  @UseGuards(SchemaLimitGuard)
  @ApiOperation({
    summary:
      "One object's fields as the org's describe gives them (name, label, type, and for a lookup its relationship name and target): a step of a field path in the console's picker.",
  })
  @ApiQuery({ name: 'object', required: true, description: 'The API name of an object of the org (`Account`, `i360__Prospect__c`).' })
  @ApiNotFoundResponse({ description: 'The org has no such object (or this user may not see it).' })
  async fields(@Query('object') object: string | undefined): Promise<{ object: string; fields: DescribedField[] }> {
    const connection = await this.salesforceConnection();
    const fields = object ? await describeObject(this.orgs.adapterFor(connection).api, object) : null;
    if (!fields) throw new NotFoundException({ statusCode: 404, message: `the org has no object ${String(object ?? '').slice(0, 80)}` });
    return { object: String(object), fields };
  }

  @Put('names')
  @ApiOperation({
    summary: 'Sets names of needs (and the Sold value, preset, who pushes); checked against the org first: a name it lacks answers 422 and nothing is saved.',
  })
  @ApiConflictResponse({ description: 'Set in the environment, or not a Salesforce org.' })
  @ApiUnprocessableEntityResponse({ description: 'A name the org lacks or of the wrong type; the answer lists them and nothing is saved.' })
  async names(@Body() body: SalesforceNamesDto, @Actor() actor: AdminActor): Promise<ConnectionView & { schema: SchemaReport }> {
    this.assertEditable();
    const current = await this.salesforceConnection();
    const unknown = Object.keys(body.names ?? {}).filter((need) => !NEEDS.some((n) => n.name === need));
    if (unknown.length > 0) throw new UnprocessableEntityException({ statusCode: 422, message: `no need named ${unknown.join(', ')}`, field: 'names' });
    const bad = Object.entries(body.names ?? {}).filter(([, name]) => typeof name !== 'string' || name.length > 255);
    if (bad.length > 0)
      throw new UnprocessableEntityException({ statusCode: 422, message: `names must be strings: ${bad.map(([n]) => n).join(', ')}`, field: 'names' });
    const next: SalesforceAppointmentCrmConnection = {
      ...current,
      names: { ...current.names, ...(body.names ?? {}) },
      soldValue: body.sold_value ?? current.soldValue,
      preset: body.preset ?? current.preset,
      pushes: (body.pushes ?? current.pushes) as 'service' | 'crm-sync',
    };
    const report = await this.orgs.schema(this.orgs.build(next, 1), next);
    // A name picked here must be in the org, optional or not: only a preset's optional name is turned off quietly.
    const picked = report.needs.filter((n) => body.names?.[n.need] && n.status !== 'ok' && n.status !== 'unused').map((n) => `${n.label}: ${n.detail}`);
    if (!report.ok || picked.length > 0)
      throw new UnprocessableEntityException({
        statusCode: 422,
        message: `not saved: ${[describeProblems(report), ...picked].filter(Boolean).join('; ')}`,
        code: 'schema_mismatch',
        schema: report,
      });
    await this.connections.save('appointment_crm', next, actor.name);
    const off = describeTurnedOff(report);
    await this.connections.recordCheck(
      'appointment_crm',
      true,
      null,
      off ? `every name needed found in the org; not in this org (turned off): ${off}` : 'every name found in the org',
    );
    await this.audit.record(actor, {
      detail: `appointment CRM names set: ${JSON.stringify(next.names).slice(0, 300)}; Sold value ${next.soldValue}; pushes ${next.pushes}`,
    });
    return { ...(await this.views.one('appointment_crm')), schema: report };
  }

  private async salesforceConnection(): Promise<SalesforceAppointmentCrmConnection> {
    const connection = await this.connections.get('appointment_crm');
    if (!isSalesforce(connection)) throw new ConflictException({ statusCode: 409, message: 'the appointment CRM is not a Salesforce org' });
    return connection;
  }

  private assertEditable(): void {
    const problem = this.connections.editProblem('appointment_crm');
    if (problem) throw new ConflictException({ statusCode: 409, message: problem });
  }
}

/** Where the org sends the admin back after the consent: the single-use state and this browser's cookie are the proof. */
@Controller()
export class SalesforceCallbackController {
  constructor(
    private readonly connect: SalesforceConnectService,
    private readonly audit: AdminAuditService,
  ) {}

  @Get(SALESFORCE_CALLBACK_PATH.slice(1))
  @ApiExcludeEndpoint()
  async callback(@Query() query: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    void reply.header('cache-control', 'no-store');
    const repeated = Object.entries(query).filter(([, value]) => Array.isArray(value));
    if (repeated.length > 0) return sendFailure(reply, 400, `${repeated.map(([name]) => name).join(', ')} must be given once`, 'The appointment CRM');
    const outcome = await this.connect.finish(query as Record<string, string>, readCookie(request.headers.cookie, OAUTH_BINDING_COOKIE));
    void reply.header('set-cookie', oauthBindingCookie(null, request.protocol === 'https', 600, SALESFORCE_CALLBACK_PATH));
    if (!outcome.ok) return sendFailure(reply, outcome.status, outcome.reason, 'The appointment CRM');
    await this.audit.record(
      { name: outcome.actor, role: 'admin' },
      { detail: `appointment CRM connected (Salesforce): ${outcome.detail}`, crm: 'appointment' },
    );
    await reply.status(303).header('location', '/admin/#connections').send();
  }
}
