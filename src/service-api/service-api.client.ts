import { Inject, Injectable } from '@nestjs/common';
import FormData from 'form-data';
import type { Readable } from 'node:stream';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { MetricsService } from '../observability/metrics.service.js';
import { isJsonObject, jsonInteger, optionalIdString } from '../http/exact-json.js';
import { excerptOf, notConnected, OutboundError } from '../http/outbound-error.js';
import type { ServiceConnection } from '../config/connection-settings.js';
import { ConnectionsService } from '../connections/connections.service.js';
import { bearerHttp, OutboundHttp } from '../http/outbound-http.js';
import { openPdf, type PdfStream } from '../http/pdf-download.js';
import { SharedRedisService } from '../queues/shared-redis.service.js';
import { normalizeIds } from './normalize-ids.js';
import { paginate } from './paginate.js';
import { serviceRateCap, type SharedRateCap } from './shared-rate-cap.js';
import type {
  AddCollaboratorsResult,
  AssociationPair,
  BatchAssociateResult,
  Collaborator,
  Drawing,
  DrawingListItem,
  FieldDataResult,
  LineItemsResult,
  Page,
  Payment,
  Product,
  Project,
  ProjectInput,
  Proposal,
  ProposalTemplate,
  RecordModule,
  TakeoffResult,
} from './service-api.types.js';

const PER_PAGE = 100;
const enc = encodeURIComponent;

/**
 * The typed client of the service's v1 API: one method per endpoint (P1 to C1), exact ids, a rate cap of
 * SERVICE_API_MAX_RPS for the whole deployment (shared through Redis), retries of transient failures, and typed
 * errors naming the endpoint.
 */
@Injectable()
export class ServiceApiClient {
  private readonly downloads: OutboundHttp;
  /** One rate cap for every replica and every connection in turn. */
  private readonly rateCap: SharedRateCap;
  /** The client of the connection in effect, and what was learnt through it; made again when the connection changes. */
  private client: { connection: ServiceConnection; http: OutboundHttp; firstTemplate?: Promise<string> } | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly connections: ConnectionsService,
    private readonly metrics: MetricsService,
    shared: SharedRedisService,
  ) {
    this.rateCap = serviceRateCap(shared, config.service.maxRps);
    this.downloads = new OutboundHttp({
      system: 'download',
      timeoutMs: config.http.timeoutMs,
      retry: config.http.retry,
      metrics,
      addressPolicy: { allowPrivate: config.downloads.allowPrivateAddresses },
    });
  }

  // Projects

  /** P1, one page. */
  listProjects(query: Page & { createdAtBegin?: string; createdAtEnd?: string } = {}): Promise<Project[]> {
    return this.getList('P1 GET /projects', '/projects', {
      ...pageParams(query),
      created_at_begin: query.createdAtBegin,
      created_at_end: query.createdAtEnd,
    });
  }

  /** P1, every page. */
  allProjects(query: { createdAtBegin?: string; createdAtEnd?: string } = {}): AsyncGenerator<Project> {
    return paginate((page) => this.listProjects({ ...query, page, perPage: PER_PAGE }));
  }

  /** P2 */
  createProject(input: ProjectInput & { owner: string }): Promise<Project> {
    return this.call('P2 POST /projects', 'POST', '/projects', input);
  }

  /** P3 */
  updateProject(projectId: string, input: ProjectInput & { operator: string }): Promise<unknown> {
    return this.call('P3 PATCH /projects/:id', 'PATCH', `/projects/${enc(projectId)}`, input);
  }

  /** P4 */
  getProject(projectId: string): Promise<Project> {
    return this.call('P4 GET /projects/:id', 'GET', `/projects/${enc(projectId)}`);
  }

  /** P5, one page. */
  searchProjects(query: { projectName?: string; tags?: string[] } & Page): Promise<Project[]> {
    return this.call('P5 POST /projects/search', 'POST', '/projects/search', { project_name: query.projectName, tags: query.tags }, pageParams(query));
  }

  /** P6: idempotent on the service's side. */
  addCollaborators(projectId: string, collaborators: Collaborator[]): Promise<AddCollaboratorsResult> {
    return this.call('P6 POST /projects/:id/add_collaborators', 'POST', `/projects/${enc(projectId)}/add_collaborators`, { collaborators });
  }

  /** P7 */
  removeCollaborators(projectId: string, emails: string[]): Promise<unknown> {
    return this.call('P7 POST /projects/:id/remove_collaborators', 'POST', `/projects/${enc(projectId)}/remove_collaborators`, { emails });
  }

  /** P8, one page. */
  listDrawings(projectId: string, query: Page = {}): Promise<DrawingListItem[]> {
    return this.getList('P8 GET /projects/:id/drawings', `/projects/${enc(projectId)}/drawings`, pageParams(query));
  }

  /** P8, every page. */
  allDrawings(projectId: string): AsyncGenerator<DrawingListItem> {
    return paginate((page) => this.listDrawings(projectId, { page, perPage: PER_PAGE }));
  }

  /** P9: from a URL, or from a PDF stream (sent once; not retried). */
  async importPdf(projectId: string, source: { fileUrl: string } | { file: Readable; fileName: string }): Promise<{ drawings: Array<{ id: string }> }> {
    const form = new FormData();
    if ('fileUrl' in source) form.append('file_url', source.fileUrl);
    else form.append('file', source.file, { filename: source.fileName, contentType: 'application/pdf' });
    const endpoint = 'P9 POST /projects/:id/import_pdf';
    const response = await (
      await this.api(endpoint)
    ).request({
      endpoint,
      method: 'POST',
      path: `/projects/${enc(projectId)}/import_pdf`,
      body: form,
      headers: form.getHeaders(),
    });
    return normalizeIds(response.data);
  }

  /** P10 */
  archiveProject(projectId: string): Promise<unknown> {
    return this.call('P10 POST /projects/:id/archive', 'POST', `/projects/${enc(projectId)}/archive`);
  }

  /** P11 */
  unarchiveProject(projectId: string): Promise<unknown> {
    return this.call('P11 POST /projects/:id/unarchive', 'POST', `/projects/${enc(projectId)}/unarchive`);
  }

  /** P12 */
  transferOwner(projectId: string, owner: string): Promise<unknown> {
    return this.call('P12 POST /projects/:id/transfer_owner', 'POST', `/projects/${enc(projectId)}/transfer_owner`, { owner });
  }

  // Drawings

  /** D1 */
  getDrawing(drawingId: string, drawingVersionId?: string): Promise<Drawing> {
    return this.call('D1 GET /drawings/:id', 'GET', `/drawings/${enc(drawingId)}`, undefined, versionParam(drawingVersionId));
  }

  /** D2 */
  getLineItems(drawingId: string, drawingVersionId?: string): Promise<LineItemsResult> {
    return this.call('D2 GET /drawings/:id/line_items', 'GET', `/drawings/${enc(drawingId)}/line_items`, undefined, versionParam(drawingVersionId));
  }

  /** D3 */
  getTakeoffItems(drawingId: string, drawingVersionId?: string): Promise<TakeoffResult> {
    return this.call('D3 GET /drawings/:id/takeoff_items', 'GET', `/drawings/${enc(drawingId)}/takeoff_items`, undefined, versionParam(drawingVersionId));
  }

  /** D4 */
  getFieldData(drawingId: string, drawingVersionId?: string): Promise<FieldDataResult> {
    return this.call('D4 GET /drawings/:id/field_data', 'GET', `/drawings/${enc(drawingId)}/field_data`, undefined, versionParam(drawingVersionId));
  }

  // Products, templates, proposals

  /** R1, one page. */
  listProducts(query: Page & { orderBy?: 'create_at' | 'update_at'; order?: 'asc' | 'desc' } = {}): Promise<Product[]> {
    return this.getList('R1 GET /products', '/products', { ...pageParams(query), order_by: query.orderBy, order: query.order });
  }

  /** R1, every page. */
  allProducts(): AsyncGenerator<Product> {
    return paginate((page) => this.listProducts({ page, perPage: PER_PAGE }));
  }

  /** R2, one page. */
  listProposalTemplates(query: Page = {}): Promise<ProposalTemplate[]> {
    return this.getList('R2 GET /proposal_templates', '/proposal_templates', pageParams(query));
  }

  /**
   * The template of proposal exports: PROPOSAL_TEMPLATE_ID, else the service's first (R2), asked once per process
   * (a failed lookup is asked again next time).
   */
  async proposalTemplateId(): Promise<string> {
    if (this.config.service.proposalTemplateId) return this.config.service.proposalTemplateId;
    await this.api('R2 GET /proposal_templates');
    const client = this.client!;
    client.firstTemplate ??= this.listProposalTemplates({ page: 1, perPage: 10 }).then(([first]) => {
      if (!first)
        throw new OutboundError('service', 'R2 GET /proposal_templates', 'rejected', 200, 'the service lists no proposal template; set PROPOSAL_TEMPLATE_ID');
      return first.id;
    });
    return client.firstTemplate.catch((err: unknown) => {
      client.firstTemplate = undefined;
      throw err;
    });
  }

  /** R3, one page. */
  listProposals(query: Page & { projectId?: string } = {}): Promise<Proposal[]> {
    return this.getList('R3 GET /proposals', '/proposals', { ...pageParams(query), project_id: query.projectId });
  }

  /** R3, every page. */
  allProposals(query: { projectId?: string } = {}): AsyncGenerator<Proposal> {
    return paginate(
      (page) => this.listProposals({ ...query, page, perPage: PER_PAGE }),
      (p) => p.proposal_id,
    );
  }

  /** R4: the URL of the exported PDF. */
  async exportProposalPdf(templateId: string, drawingId: string): Promise<string> {
    const answer = await this.call<{ url?: unknown }>('R4 POST /export_proposal_pdf', 'POST', '/export_proposal_pdf', {
      template_id: templateId,
      drawing_id: drawingId,
    });
    if (typeof answer?.url !== 'string') {
      throw new OutboundError('service', 'R4 POST /export_proposal_pdf', 'invalid_response', 200, 'answer has no url');
    }
    return answer.url;
  }

  /** R5 */
  listPayments(proposalId: string): Promise<Payment[]> {
    return this.getList('R5 GET /proposals/:id/payments', `/proposals/${enc(proposalId)}/payments`, {});
  }

  // Appointment CRM integration

  /** A1 */
  associateAppointment(pair: AssociationPair): Promise<Project> {
    return this.call('A1 POST /appointment_crm/associate_project', 'POST', '/appointment_crm/associate_project', pair);
  }

  /** A2: fail items are accepted flat (`{appointment_id, project_id, message}`) or wrapped (`{data: {...}, message}`). */
  async batchAssociateAppointments(items: AssociationPair[]): Promise<BatchAssociateResult> {
    const endpoint = 'A2 POST /appointment_crm/batch/associate_project';
    const answer = await this.call<unknown>(endpoint, 'POST', '/appointment_crm/batch/associate_project', { items });
    const itemsOf = (field: 'success_items' | 'fail_items'): unknown[] => {
      const list = isJsonObject(answer) ? (answer[field] ?? []) : null;
      if (!Array.isArray(list)) throw new OutboundError('service', endpoint, 'invalid_response', 200, `expected an object whose ${field} is a list`);
      return list;
    };
    // An item that does not name both ids cannot be attributed; it is dropped, and its mapping stays pending.
    return {
      successItems: itemsOf('success_items').flatMap((item) => toOptionalPair(item) ?? []),
      failItems: itemsOf('fail_items').flatMap((item) => {
        const raw = isJsonObject(item) ? item : {};
        const pair = toOptionalPair(isJsonObject(raw.data) ? raw.data : raw);
        if (!pair) return [];
        return [{ ...pair, message: typeof raw.message === 'string' ? raw.message : 'association failed (no reason given)' }];
      }),
    };
  }

  /**
   * A3: the external product connected to a service product, or null when none is. The spec gives both GET and POST
   * for this endpoint; GET is tried first and POST on a 405. A 404 means "none" only as the service's own JSON
   * answer about the product: a proxy's or another route's 404 read as "none" would sell items unlinked, silently.
   */
  async getConnectedProduct(productId: string): Promise<string | null> {
    const path = `/appointment_crm/connected_product/${enc(productId)}`;
    const ask = async (method: 'GET' | 'POST') =>
      (await this.api('A3 /appointment_crm/connected_product/:id')).request<{ connected_product_id?: unknown } | null>({
        endpoint: `A3 ${method} /appointment_crm/connected_product/:id`,
        method,
        path,
        acceptStatus: [404],
      });
    let response;
    try {
      response = await ask('GET');
    } catch (err) {
      if (!(err instanceof OutboundError) || err.status !== 405) throw err;
      response = await ask('POST');
    }
    if (response.status === 404) {
      if (saysNoConnectedProduct(response.data)) return null;
      throw new OutboundError(
        'service',
        'A3 /appointment_crm/connected_product/:id',
        'not_found',
        404,
        `a 404 that is not the service's "no connected product": ${excerptOf(response.data ?? '(empty body)', 120)}`,
      );
    }
    const answer = normalizeIds<unknown>(response.data);
    const connected = isJsonObject(answer) ? answer.connected_product_id : undefined;
    if (connected === undefined || connected === null || connected === '') return null;
    const id = idOrNull(connected);
    if (id === null) {
      throw new OutboundError(
        'service',
        'A3 /appointment_crm/connected_product/:id',
        'invalid_response',
        response.status,
        `connected_product_id is not an id: ${excerptOf(connected, 40)}`,
      );
    }
    return id;
  }

  // Record CRM integration

  /** C1: `project_id` is sent as a JSON integer, digit for digit. */
  associateRecord(input: { module: RecordModule; recordId: string; projectId: string }): Promise<Project> {
    return this.call('C1 POST /record_crm/associate_project', 'POST', '/record_crm/associate_project', {
      record_crm_module: input.module,
      record_crm_record_id: input.recordId,
      project_id: jsonInteger(input.projectId),
    });
  }

  /** A PDF the service links to (drawing `pdf_url`, R4 `url`, a signed proposal), as a size-capped stream. */
  openPdf(url: string): Promise<PdfStream> {
    return openPdf(this.downloads, url, { maxBytes: this.config.http.pdfMaxBytes, deadlineMs: this.config.downloads.deadlineMs });
  }

  /**
   * An approved proposal's signed PDF. Its address is a time-limited signed URL taken from the approval; when a late
   * retry finds it refused (expired), the proposal is read again (R3) for a fresh address.
   */
  async openSignedProposalPdf(url: string, projectId: string, proposalId: string): Promise<PdfStream> {
    try {
      return await this.openPdf(url);
    } catch (err) {
      if (!(err instanceof OutboundError) || ![401, 403, 404, 410].includes(err.status ?? 0)) throw err;
      for await (const proposal of this.allProposals({ projectId })) {
        if (proposal.proposal_id === proposalId && proposal.pdf_url && proposal.pdf_url !== url) return this.openPdf(proposal.pdf_url);
      }
      throw err;
    }
  }

  private async call<T>(
    endpoint: string,
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    json?: unknown,
    params?: Record<string, string | number | undefined>,
  ): Promise<T> {
    const response = await (await this.api(endpoint)).request({ endpoint, method, path, json, params });
    return normalizeIds<T>(response.data);
  }

  private async api(endpoint: string): Promise<OutboundHttp> {
    const connection = await this.connections.get('service');
    if (!connection) throw notConnected('service', endpoint, 'The service');
    if (this.client?.connection !== connection)
      this.client = { connection, http: serviceHttp(connection, this.config, { metrics: this.metrics, throttle: (call) => this.rateCap.run(call) }) };
    return this.client.http;
  }

  private async getList<T>(endpoint: string, path: string, params: Record<string, string | number | undefined>): Promise<T[]> {
    const data = await this.call<unknown>(endpoint, 'GET', path, undefined, params);
    if (!Array.isArray(data)) throw new OutboundError('service', endpoint, 'invalid_response', 200, 'expected a list');
    return data as T[];
  }
}

function pageParams(query: Page): Record<string, number | undefined> {
  return { page: query.page, per_page: query.perPage };
}

function versionParam(drawingVersionId?: string): Record<string, string | undefined> {
  return { drawing_version_id: drawingVersionId };
}

/** The pair an answer's item names, or null when it does not name both ids (or names them as something else). */
function toOptionalPair(value: unknown): AssociationPair | null {
  if (!isJsonObject(value)) return null;
  const appointment = idOrNull(value.appointment_id);
  const project = idOrNull(value.project_id);
  return appointment && project ? { appointment_id: appointment, project_id: project } : null;
}

function idOrNull(value: unknown): string | null {
  try {
    return optionalIdString(value);
  } catch {
    return null;
  }
}

/** An HTTP client of the service with a connection's base URL and token (also the console's check of a new one). */
export const serviceHttp = (connection: ServiceConnection, config: AppConfig, extra: Parameters<typeof bearerHttp>[3] = {}): OutboundHttp =>
  bearerHttp('service', { baseUrl: connection.baseUrl, bearer: connection.token }, config.http, extra);

const A3_REASON_FIELDS = ['error', 'message', 'code', 'detail'];

/**
 * Whether a 404 of A3 is the service saying no product is connected: a JSON object (the service answers JSON; the
 * shape of its errors is not documented) that names no reason, or names the product. An empty or non-JSON body, or
 * a reason about something else (`route not found`), is not.
 */
export function saysNoConnectedProduct(answer: unknown): boolean {
  if (!isJsonObject(answer)) return false;
  const reasons = A3_REASON_FIELDS.map((field) => answer[field]).filter((value): value is string => typeof value === 'string');
  return reasons.length === 0 || reasons.some((reason) => /product/i.test(reason));
}
