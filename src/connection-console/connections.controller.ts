import {
  Body,
  ConflictException,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  NotFoundException,
  Param,
  Post,
  Put,
  Req,
  Res,
  UnprocessableEntityException,
} from '@nestjs/common';
import { ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Actor, AdminRoute, RequiresRole } from '../auth/admin-auth.guard.js';
import { AdminAuditService } from '../actions/admin-audit.service.js';
import type { AdminActor } from '../config/roles.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ConnectionChecksService, type CheckOutcome } from './connection-checks.service.js';
import { lastFour } from '../connections/connection-codecs.js';
import {
  connectionName,
  isSalesforce,
  type SalesforceAppointmentCrmConnection,
  type ConnectionName,
  type ConnectionSettings,
  type WebhookSecrets,
} from '../config/connection-settings.js';
import { ConnectionViewsService, webhookAddresses, type ConnectionView } from './connection-views.service.js';
import { AppointmentCrmConnectionDto, RecordCrmConnectionDto, ServiceConnectionDto, WebhooksConnectionDto } from './connections.dto.js';
import { ConnectionsService } from '../connections/connections.service.js';
import { oauthBindingCookie } from './oauth-binding-cookie.js';
import { ZohoConnectService } from './zoho-connect.service.js';
import { SalesforceConnectService } from './salesforce-connect.service.js';
import { zohoDomainProblem } from '../config/zoho-domains.js';
import { originOf, redactUrlCredentialsDeep, seesRawUrls } from '../http/redact-urls.js';

/**
 * A connection as a viewer or an operator sees it: `base_url` as its origin, also in the last check's detail (one
 * recorded before checks named origins only), URL credentials out of the rest.
 */
function redactedForViewers(view: ConnectionView): ConnectionView {
  const baseUrl = view.settings?.base_url;
  if (typeof baseUrl !== 'string') return redactUrlCredentialsDeep(view);
  const origin = originOf(baseUrl);
  return redactUrlCredentialsDeep({ ...view, detail: view.detail?.replaceAll(baseUrl, origin) ?? null, settings: { ...view.settings, base_url: origin } });
}

const LABELS: Record<ConnectionName, string> = { service: 'service', appointment_crm: 'appointment CRM', record_crm: 'Zoho CRM', webhooks: 'webhooks' };

/**
 * The Connections screen's API (docs/operations.md "Connections"): the service, the two CRMs and the webhook secrets, set from the
 * console when the environment does not set them. New settings are tested before they are saved; secrets are sealed
 * with CONNECTIONS_KEY and never answered (their last 4 characters at most).
 */
@ApiTags('connections')
@AdminRoute()
@Controller('api/connections')
export class ConnectionsController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly connections: ConnectionsService,
    private readonly views: ConnectionViewsService,
    private readonly checks: ConnectionChecksService,
    private readonly zoho: ZohoConnectService,
    private readonly salesforce: SalesforceConnectService,
    private readonly audit: AdminAuditService,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Every connection: state (connected, degraded with the reason, not_configured), where set, last check, settings without secrets.',
    description:
      "Admins see each connection's URLs as saved; viewers and operators see the base URL's origin only (no userinfo, path or query, which may hold a tenant's secret) and URL credentials taken out of details.",
  })
  async list(@Actor() actor: AdminActor): Promise<Record<string, unknown>> {
    const items = await this.views.list();
    return { items: seesRawUrls(actor) ? items : items.map(redactedForViewers), ...this.views.context() };
  }

  @Put('service')
  @ApiOperation({ summary: 'Sets the service connection; tested (R2) first: a failing test answers 422 with the reason and saves nothing.' })
  @ApiConflictResponse({ description: 'Set in the environment, or no CONNECTIONS_KEY.' })
  @ApiUnprocessableEntityResponse({ description: 'The service refused or did not answer; nothing was saved.' })
  async putService(@Body() body: ServiceConnectionDto, @Actor() actor: AdminActor): Promise<ConnectionView> {
    const settings = { baseUrl: body.base_url.replace(/\/+$/, ''), token: body.token };
    return this.testAndSave('service', settings, await this.checks.service(settings), actor, `service connection set to ${originOf(settings.baseUrl)}`);
  }

  @Put('appointment-crm')
  @ApiOperation({ summary: 'Sets the appointment CRM connection; tested first, as the service.' })
  @ApiConflictResponse({ description: 'Set in the environment, or no CONNECTIONS_KEY.' })
  @ApiUnprocessableEntityResponse({ description: 'The appointment CRM refused or did not answer; nothing was saved.' })
  async putAppointmentCrm(@Body() body: AppointmentCrmConnectionDto, @Actor() actor: AdminActor): Promise<ConnectionView> {
    const settings = { baseUrl: body.base_url.replace(/\/+$/, ''), apiKey: body.api_key };
    return this.testAndSave(
      'appointment_crm',
      settings,
      await this.checks.appointmentCrm(settings),
      actor,
      `appointment CRM connection set to ${originOf(settings.baseUrl)}`,
    );
  }

  @Put('webhooks')
  @ApiOperation({
    summary: "Sets the webhooks' secrets (several during a rotation; `…abcd` keeps a current one); answers the three addresses to enter in the service.",
  })
  @ApiConflictResponse({ description: 'Set in the environment, or no CONNECTIONS_KEY.' })
  @ApiUnprocessableEntityResponse({ description: '`…abcd` names no current secret.' })
  async putWebhooks(
    @Body() body: WebhooksConnectionDto,
    @Actor() actor: AdminActor,
  ): Promise<ConnectionView & { addresses: ReturnType<typeof webhookAddresses> }> {
    this.assertEditable('webhooks');
    const current = await this.connections.get('webhooks');
    const secrets: WebhookSecrets = {
      events: resolveSecrets(body.events, current?.events ?? [], 'events'),
      appointmentPrompt: resolveSecrets(body.appointment_prompt ?? [], current?.appointmentPrompt ?? [], 'appointment_prompt'),
      recordPrompt: resolveSecrets(body.record_prompt ?? [], current?.recordPrompt ?? [], 'record_prompt'),
    };
    const view = await this.testAndSave('webhooks', secrets, this.checks.webhooks(secrets), actor, 'webhook secrets set');
    return { ...view, addresses: webhookAddresses(this.config) };
  }

  @Put('record-crm')
  @ApiOperation({
    summary: "Starts connecting Zoho CRM: answers `{ authorize_url }`, Zoho's consent page, to open in the same browser.",
    description:
      'The answer sets a short-lived cookie that binds the consent to this browser; the callback (`GET /admin/connections/record-crm/callback`) needs it.',
  })
  @ApiConflictResponse({ description: 'Set in the environment, or no CONNECTIONS_KEY.' })
  async putRecordCrm(
    @Body() body: RecordCrmConnectionDto,
    @Actor() actor: AdminActor,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ authorize_url: string; redirect_uri: string }> {
    this.assertEditable('record_crm');
    const accountsUrl = body.accounts_url.replace(/\/+$/, '');
    const domainProblem = zohoDomainProblem('accounts_url', accountsUrl, this.config.zohoDomains);
    if (domainProblem) throw new UnprocessableEntityException({ statusCode: 422, message: domainProblem });
    let clientSecret = body.client_secret;
    if (clientSecret === undefined) {
      const saved = await this.connections.get('record_crm');
      if (!saved || saved.clientId !== body.client_id)
        throw new UnprocessableEntityException({
          statusCode: 422,
          message: 'client_secret is required for a new client',
          code: 'required',
          field: 'client_secret',
        });
      // The saved secret is only ever sent where it was entered for: another accounts server must be given it anew.
      if (saved.accountsUrl !== accountsUrl)
        throw new UnprocessableEntityException({
          statusCode: 422,
          message: 'client_secret is required when accounts_url changes',
          code: 'required',
          field: 'client_secret',
        });
      clientSecret = saved.clientSecret;
    }
    const { authorizeUrl, binding } = await this.zoho.start({ accountsUrl, clientId: body.client_id, clientSecret }, actor.name);
    reply.header('set-cookie', oauthBindingCookie(binding, request.protocol === 'https')).header('cache-control', 'no-store');
    return { authorize_url: authorizeUrl, redirect_uri: this.zoho.redirectUri };
  }

  @Post(':name/test')
  @HttpCode(200)
  @RequiresRole('operator')
  @ApiOperation({ summary: 'Tests the connection in effect with one harmless call; records the outcome as its last check.' })
  @ApiOkResponse({ description: '`{ ok, code, detail }`: `code` says why it failed (null when it passed).' })
  async test(@Param('name') name: string): Promise<CheckOutcome> {
    return this.checks.checkAndRecord(this.nameOf(name));
  }

  @Delete(':name')
  @ApiOperation({ summary: "Forgets the console's settings of a connection; a Zoho refresh token is revoked first." })
  @ApiConflictResponse({ description: 'Set in the environment.' })
  async remove(@Param('name') value: string, @Actor() actor: AdminActor): Promise<{ removed: true; revoked?: boolean; detail: string }> {
    const name = this.nameOf(value);
    const state = (await this.connections.states()).find((s) => s.name === name)!;
    if (state.source === 'environment') throw new ConflictException({ statusCode: 409, message: this.connections.editProblem(name) });
    if (state.source === null) throw new NotFoundException({ statusCode: 404, message: `the ${LABELS[name]} is not connected from the console` });
    const revocation =
      name === 'record_crm' && state.settings
        ? await this.zoho.revoke(state.settings as ConnectionSettings['record_crm'])
        : name === 'appointment_crm' && isSalesforce(state.settings as ConnectionSettings['appointment_crm'] | null)
          ? await this.salesforce.revoke(state.settings as SalesforceAppointmentCrmConnection)
          : null;
    await this.connections.remove(name);
    const detail = `${LABELS[name]} connection removed${revocation ? `; ${revocation.detail}` : ''}`;
    await this.audit.record(actor, { detail });
    return { removed: true, ...(revocation ? { revoked: revocation.revoked } : {}), detail };
  }

  private async testAndSave<N extends ConnectionName>(name: N, settings: ConnectionSettings[N], check: CheckOutcome, actor: AdminActor, what: string) {
    this.assertEditable(name);
    if (!check.ok) throw new UnprocessableEntityException({ statusCode: 422, message: `not saved: ${check.detail}`, code: check.code, detail: check.detail });
    await this.connections.save(name, settings, actor.name);
    await this.connections.recordCheck(name, true, null, check.detail);
    await this.audit.record(actor, { detail: what });
    return this.views.one(name);
  }

  private assertEditable(name: ConnectionName): void {
    const problem = this.connections.editProblem(name);
    if (problem) throw new ConflictException({ statusCode: 409, message: problem });
  }

  private nameOf(value: string): ConnectionName {
    const name = connectionName(value);
    if (!name) throw new NotFoundException({ statusCode: 404, message: `no connection named ${value}; one of service, appointment-crm, record-crm, webhooks` });
    return name;
  }
}

/** New secrets as given; `…abcd` replaced by the current secret ending in `abcd`. */
function resolveSecrets(given: string[], current: string[], field: string): string[] {
  return given.map((secret) => {
    if (!secret.startsWith('…') || secret.length !== 5) return secret;
    const kept = current.find((c) => lastFour(c) === secret.slice(1));
    if (!kept) {
      const message = `${field}: no current secret ends in ${secret.slice(1)}`;
      throw new UnprocessableEntityException({ statusCode: 422, message, code: 'kept_secret_unknown', field });
    }
    return kept;
  });
}
