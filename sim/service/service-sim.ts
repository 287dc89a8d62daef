import busboy from 'busboy';
import { LosslessNumber, parse as parseLossless } from 'lossless-json';
import { SimServer, bareNumber, makePdf, parseExactJson, type SimHandler, type SimRequest, type SimResponse } from '../common/sim-server.js';
import { FileServer } from './file-server.js';
import type {
  Collaborator,
  DrawingVersion,
  DrawingView,
  FieldDataResult,
  LineItemsResult,
  Payment,
  Product,
  Project,
  Proposal,
  ProposalTemplate,
  Role,
  SimDrawing,
  TakeoffResult,
} from './types.js';

/*
 * How ids are written in answers (the real service mixes both; the daemon must accept either):
 *   bare JSON number: Project `id` in P1, P4, P5 and A1; P8 drawing list item `id`; P9 `drawings[].id`;
 *                     R1 product `id`; R3 `proposal_id`; D3 `product_id`.
 *   JSON string:      Project `id` in P2, P3 and C1; D1 `id`/`project_id`; D2 `product_id` and
 *                     `drawing_version_id`; R2 template `id`; R3 `project_id` and the other ids of a proposal;
 *                     A3 `connected_product_id`.
 */

const FIRST_ID = 36029621652695017n;
const ROLES: Role[] = ['PROJECT_ADMIN', 'PROJECT_COLLABORATOR', 'PROJECT_VIEWER'];
export const RECORD_MODULES = ['Deals', 'Quotes', 'Leads', 'Contacts'] as const;
export type RecordModule = (typeof RECORD_MODULES)[number];
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface ServiceSimOptions {
  token?: string;
}

export interface ProposalExport {
  n: number;
  templateId: string;
  drawingId: string;
  drawingVersionId: string;
  url: string;
  at: number;
}

export interface RecordAssociation {
  module: RecordModule;
  recordId: string;
}

export type ProjectSeed = Partial<Project> & { owner?: string };
export type DrawingSeed = Partial<Omit<SimDrawing, 'id' | 'projectId' | 'versions'>> & { id?: string };
export type DrawingChanges = Partial<Pick<SimDrawing, 'name' | 'tags' | 'pdf' | 'lineItems' | 'takeoff' | 'fieldData' | 'versionId'>>;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const bad = (message: string): HttpError => new HttpError(400, message);
const notFound = (what: string): HttpError => new HttpError(404, `${what} not found`);

function timestamp(date = new Date()): string {
  return date.toISOString().slice(0, 19);
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** An id that arrived as a JSON string or number (parseExactJson gives big ones as strings). */
function idText(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  return undefined;
}

/**
 * The drawing and proposal service, in memory, over real HTTP. API under `/v1` (see `apiBaseUrl`), bearer token checked.
 * Files: drawing, proposal and `serveFile` downloads are served by this server under `/files/...` without auth
 * (fault injection and the request log apply); `serveGeneratedFile` URLs point at a separate streaming FileServer
 * whose requests are recorded into the same `requests` log.
 */
export class ServiceSim extends SimServer {
  readonly token: string;
  /** Creation order; P1 hides archived ones. */
  readonly projects = new Map<string, Project>();
  readonly projectOwners = new Map<string, string>();
  readonly collaborators = new Map<string, Collaborator[]>();
  readonly drawings = new Map<string, SimDrawing>();
  readonly products = new Map<string, Product>();
  /** A3 connections: service product id -> external product id. */
  readonly productConnections = new Map<string, string>();
  readonly templates = new Map<string, ProposalTemplate>();
  readonly proposals = new Map<string, Proposal>();
  readonly payments = new Map<string, Payment[]>();
  /** Users of the organization (emails or full names): P2 and P12 owners and P6 collaborators must be among them. */
  readonly members = new Set<string>(['owner@example.com', 'estimator@example.com']);
  /** project id -> appointment id (A1, A2). */
  readonly appointmentAssociations = new Map<string, string>();
  /** project id -> record (C1). */
  readonly recordAssociations = new Map<string, RecordAssociation>();
  /** R4 exports, oldest first. */
  readonly exports: ProposalExport[] = [];
  readonly calls = { a1: 0, a2: 0, a3: 0, c1: 0 };
  /** Shape of A2 fail items. */
  failItemStyle: 'flat' | 'wrapped' = 'flat';
  /** The one method A3 answers; the other gets 405. */
  a3Method: 'GET' | 'POST' = 'POST';
  /** A2 answers 400 for more items than this (the daemon promises chunks of at most 100). */
  a2MaxItems = 100;

  private nextIdValue = FIRST_ID;
  private tick = 0;
  /** Creation order of every object; proposals' and products' last activity. */
  private readonly createdSeq = new Map<string, number>();
  private readonly activitySeq = new Map<string, number>();
  private readonly blobs = new Map<string, { bytes: Buffer; contentType: string }>();
  private blobCounter = 0;
  private readonly fileServer = new FileServer(this.requests);

  constructor(options: ServiceSimOptions = {}) {
    super('service');
    this.token = options.token ?? 'sim-token';
    this.registerProjectRoutes();
    this.registerDrawingRoutes();
    this.registerProposalRoutes();
    this.registerCrmRoutes();
    this.registerFileRoutes();
  }

  get apiBaseUrl(): string {
    return `${this.url}/v1`;
  }

  /** The daemon's environment that points it at this simulator (docs/configuration.md). */
  daemonEnv(): Record<string, string> {
    return { SERVICE_API_BASE_URL: this.apiBaseUrl, SERVICE_API_TOKEN: this.token };
  }

  override async start(port = 0): Promise<string> {
    const url = await super.start(port);
    await this.fileServer.start();
    return url;
  }

  override async stop(): Promise<void> {
    await this.fileServer.stop();
    await super.stop();
  }

  /** A fresh id: a decimal string above 2^53. */
  newId(): string {
    return (this.nextIdValue++).toString();
  }

  // ---- seeding -------------------------------------------------------------------------------------------------

  addProject(seed: ProjectSeed = {}): Project {
    const { owner, ...fields } = seed;
    const id = fields.id ?? this.newId();
    const name = fields.name ?? `Project ${this.projects.size + 1}`;
    const problem = this.nameProblem(name);
    if (problem) throw new Error(problem);
    const created = fields.created_at ?? timestamp();
    const { job_number, customer, work_site_address, sales_rep } = fields;
    // Spec field order; absent optional fields stay undefined, which JSON answers omit.
    const project: Project = {
      id,
      name,
      created_at: created,
      updated_at: fields.updated_at ?? created,
      job_number,
      customer,
      work_site_address,
      sales_rep,
      tags: fields.tags ?? [],
      archived: fields.archived ?? false,
    };
    this.projects.set(id, project);
    this.projectOwners.set(id, owner ?? [...this.members][0] ?? 'owner@example.com');
    this.collaborators.set(id, []);
    this.created(id);
    return project;
  }

  addDrawing(projectId: string, seed: DrawingSeed = {}): SimDrawing {
    if (!this.projects.has(projectId)) throw new Error(`project ${projectId} not found`);
    const id = seed.id ?? this.newId();
    const versionId = seed.versionId ?? this.newId();
    const lineItems = { ...(seed.lineItems ?? this.defaultLineItems()), drawing_version_id: versionId };
    const version: DrawingVersion = {
      versionId,
      pdf: seed.pdf ?? makePdf(`drawing ${id} v1`),
      lineItems,
      takeoff: seed.takeoff ?? takeoffFrom(lineItems),
      fieldData: seed.fieldData ?? defaultFieldData(),
    };
    const drawing: SimDrawing = {
      id,
      projectId,
      name: seed.name ?? `Drawing ${this.drawings.size + 1}`,
      tags: seed.tags ?? [],
      ...version,
      versions: [{ ...version }],
    };
    this.drawings.set(id, drawing);
    this.created(id);
    return drawing;
  }

  /** A re-upload: a new version (older ones stay readable by `drawing_version_id`); the PDF defaults to a new one labelled `v<n>`. */
  updateDrawing(id: string, changes: DrawingChanges = {}): SimDrawing {
    const drawing = this.drawings.get(id);
    if (!drawing) throw new Error(`drawing ${id} not found`);
    const versionId = changes.versionId ?? this.newId();
    const lineItems = { ...(changes.lineItems ?? drawing.lineItems), drawing_version_id: versionId };
    const version: DrawingVersion = {
      versionId,
      pdf: changes.pdf ?? makePdf(`drawing ${id} v${drawing.versions.length + 1}`),
      lineItems,
      takeoff: changes.takeoff ?? (changes.lineItems ? takeoffFrom(lineItems) : drawing.takeoff),
      fieldData: changes.fieldData ?? drawing.fieldData,
    };
    Object.assign(drawing, version, { name: changes.name ?? drawing.name, tags: changes.tags ?? drawing.tags });
    drawing.versions.push({ ...version });
    return drawing;
  }

  addProduct(seed: Partial<Product> = {}): Product {
    const n = this.products.size + 1;
    const product: Product = {
      id: seed.id ?? this.newId(),
      name: seed.name ?? `Product ${n}`,
      sku: seed.sku ?? `SKU-${n}`,
      description: seed.description ?? '',
      cost: seed.cost ?? 10,
    };
    this.products.set(product.id, product);
    this.created(product.id);
    this.touched(product.id);
    return product;
  }

  updateProduct(id: string, changes: Partial<Omit<Product, 'id'>>): Product {
    const product = this.products.get(id);
    if (!product) throw new Error(`product ${id} not found`);
    Object.assign(product, changes);
    this.touched(id);
    return product;
  }

  connectProduct(productId: string, externalProductId: string): void {
    this.productConnections.set(productId, externalProductId);
  }

  addTemplate(name = `Template ${this.templates.size + 1}`): ProposalTemplate {
    const template = { id: this.newId(), name };
    this.templates.set(template.id, template);
    this.created(template.id);
    return template;
  }

  /**
   * An APPROVED proposal gets defaults for total (the drawing's line item total), approved_option (the project's first
   * drawing) and pdf_url (a served signed PDF; needs the server started).
   */
  addProposal(seed: Partial<Proposal> & { project_id: string }): Proposal {
    const n = this.proposals.size + 1;
    const id = seed.proposal_id ?? this.newId();
    const proposal: Proposal = {
      name: `Proposal ${n}`,
      status: 'PENDING',
      sales_representative: 'Sam Sales',
      contact_email: 'sam@example.com',
      customer_name: 'Casey Customer',
      customer_email: 'casey@example.com',
      document_number: `P-${1000 + n}`,
      ...seed,
      proposal_id: id,
    };
    if (proposal.status === 'APPROVED') this.fillApproval(proposal);
    this.proposals.set(id, proposal);
    this.payments.set(id, []);
    this.created(id);
    this.touched(id);
    return proposal;
  }

  /** E.g. a status change; counts as activity for R3's order. */
  updateProposal(id: string, changes: Partial<Omit<Proposal, 'proposal_id'>>): Proposal {
    const proposal = this.proposals.get(id);
    if (!proposal) throw new Error(`proposal ${id} not found`);
    Object.assign(proposal, changes);
    if (proposal.status === 'APPROVED') this.fillApproval(proposal);
    this.touched(id);
    return proposal;
  }

  addPayment(proposalId: string, seed: Partial<Payment> = {}): Payment {
    const list = this.payments.get(proposalId);
    if (!list) throw new Error(`proposal ${proposalId} not found`);
    const channel = seed.pay_channel ?? 'service_payment';
    const payment: Payment = {
      paid_amount: 100,
      pay_channel: channel,
      ...(channel === 'service_payment' ? { paid_time: new Date().toISOString() } : { paid_date: new Date().toISOString().slice(0, 10) }),
      payment_method: 'Credit Card',
      status: 'succeeded',
      ...seed,
    };
    list.push(payment);
    this.touched(proposalId);
    return payment;
  }

  /** D1's answer (ids as strings); also the `data` of drawing.created / drawing.updated. */
  drawingView(id: string, versionId?: string): DrawingView {
    const drawing = this.drawings.get(id);
    if (!drawing) throw new Error(`drawing ${id} not found`);
    const version = versionId ?? drawing.versionId;
    const base = `${this.url}/files/drawings/${drawing.id}/${version}`;
    return {
      id: drawing.id,
      project_id: drawing.projectId,
      name: drawing.name,
      pdf_url: `${base}.pdf`,
      png_url: `${base}.png`,
      dxf_url: null,
      tags: drawing.tags,
    };
  }

  /** Serves these bytes without auth (like a signed download address) and returns the URL. Needs the server started. */
  serveFile(bytes: Buffer, contentType = 'application/pdf'): string {
    const ext = contentType.includes('pdf') ? '.pdf' : contentType.includes('png') ? '.png' : '';
    return this.serveAt(`/files/blobs/${++this.blobCounter}${ext}`, bytes, contentType);
  }

  /** A streamed body of `sizeBytes` (`%PDF-` header, then padding), never held in memory; served by the FileServer. */
  serveGeneratedFile(sizeBytes: number, contentType = 'application/pdf'): string {
    return this.fileServer.add(sizeBytes, contentType);
  }

  /** The most API requests (under `/v1`) received within any `windowMs` (sliding), among those received from `since` on. */
  maxApiRequestsInWindow(windowMs = 1000, since = 0): number {
    const times = this.requests
      .filter((r) => r.path.startsWith('/v1/') && r.at >= since)
      .map((r) => r.at)
      .sort((a, b) => a - b);
    let max = 0;
    for (let first = 0, last = 0; last < times.length; last++) {
      while (times[last] - times[first] >= windowMs) first++;
      max = Math.max(max, last - first + 1);
    }
    return max;
  }

  // ---- routes ----------------------------------------------------------------------------------------------------

  private registerProjectRoutes(): void {
    this.api('GET', '/projects', (req) => {
      const begin = dateParam(req.query, 'created_at_begin');
      const end = dateParam(req.query, 'created_at_end');
      const list = this.projectsNewestFirst().filter((p) => {
        const at = Date.parse(`${p.created_at}Z`);
        return !p.archived && (begin === undefined || at >= begin) && (end === undefined || at <= end);
      });
      return ok(paginate(list, req.query).map((p) => projectView(p, 'bare')));
    });

    this.api('POST', '/projects', (req) => {
      const body = objectBody(req);
      if (typeof body.name !== 'string') throw bad('name is required');
      if (typeof body.owner !== 'string' || body.owner === '') throw bad('owner is required');
      if (!this.members.has(body.owner)) throw bad('the owner must belong to the organization');
      this.checkName(body.name);
      const project = this.addProject({ ...projectFields(body), name: body.name, owner: body.owner });
      return ok(projectView(project, 'string'));
    });

    this.api('PATCH', '/projects/:id', (req) => {
      const project = this.project(req.params.id);
      const body = objectBody(req);
      if (typeof body.name !== 'string') throw bad('name is required');
      if (typeof body.operator !== 'string' || body.operator === '') throw bad('operator is required');
      this.checkName(body.name, project.id);
      Object.assign(project, projectFields(body), { name: body.name, updated_at: timestamp() });
      return ok(projectView(project, 'string'));
    });

    this.api('GET', '/projects/:id', (req) => ok(projectView(this.project(req.params.id), 'bare')));

    this.api('POST', '/projects/search', (req) => {
      const body = objectBody(req);
      const namepart = body.project_name;
      const tags = body.tags;
      if (namepart !== undefined && typeof namepart !== 'string') throw bad('project_name must be a string');
      if (tags !== undefined && !isStringList(tags)) throw bad('tags must be a list of strings');
      // The spec leaves the rule for several tags open; the simulator requires all of them.
      const list = this.projectsNewestFirst().filter(
        (p) => (!namepart || p.name.toLowerCase().includes(namepart.toLowerCase())) && (!tags || tags.every((t) => p.tags.includes(t))),
      );
      return ok(paginate(list, req.query).map((p) => projectView(p, 'bare')));
    });

    this.api('POST', '/projects/:id/add_collaborators', (req) => {
      const project = this.project(req.params.id);
      const body = objectBody(req);
      if (!Array.isArray(body.collaborators)) throw bad('collaborators is required');
      const list = this.collaborators.get(project.id)!;
      const success_items: Collaborator[] = [];
      const fail_items: { data: unknown; message: string }[] = [];
      for (const item of body.collaborators as Record<string, unknown>[]) {
        const email = item?.email;
        const role = item?.role as Role;
        if (typeof email !== 'string' || !ROLES.includes(role)) {
          fail_items.push({ data: item, message: 'email and a valid role are required' });
        } else if (!this.members.has(email)) {
          fail_items.push({ data: item, message: 'the user is not yet part of the company account' });
        } else {
          const existing = list.find((c) => c.email === email);
          if (existing) existing.role = role;
          else list.push({ email, role });
          success_items.push({ email, role });
        }
      }
      return ok({ success_items, fail_items });
    });

    this.api('POST', '/projects/:id/remove_collaborators', (req) => {
      const project = this.project(req.params.id);
      const emails = objectBody(req).emails;
      if (!isStringList(emails)) throw bad('emails is required');
      this.collaborators.set(
        project.id,
        this.collaborators.get(project.id)!.filter((c) => !emails.includes(c.email)),
      );
      return ok({});
    });

    this.api('GET', '/projects/:id/drawings', (req) => {
      const project = this.project(req.params.id);
      const list = [...this.drawings.values()].filter((d) => d.projectId === project.id);
      return ok(paginate(list, req.query).map((d) => ({ id: bareNumber(d.id), name: d.name })));
    });

    this.api('POST', '/projects/:id/import_pdf', async (req) => {
      const project = this.project(req.params.id);
      const { pdf, name } = await this.importedPdf(req);
      if (!pdf.subarray(0, 5).equals(Buffer.from('%PDF-'))) throw bad('file is not a PDF');
      const pages = Math.max(1, pdf.toString('latin1').match(/\/Type\s*\/Page(?!s)/g)?.length ?? 0);
      const created = Array.from({ length: pages }, (_, i) => this.addDrawing(project.id, { name: pages > 1 ? `${name} page ${i + 1}` : name, pdf }));
      return ok({ drawings: created.map((d) => ({ id: bareNumber(d.id) })) });
    });

    this.api('POST', '/projects/:id/archive', (req) => {
      this.project(req.params.id).archived = true;
      return ok({});
    });

    this.api('POST', '/projects/:id/unarchive', (req) => {
      this.project(req.params.id).archived = false;
      return ok({});
    });

    this.api('POST', '/projects/:id/transfer_owner', (req) => {
      const project = this.project(req.params.id);
      const owner = objectBody(req).owner;
      if (typeof owner !== 'string' || owner === '') throw bad('owner is required');
      if (!this.members.has(owner)) throw bad('the new owner must belong to the organization');
      this.projectOwners.set(project.id, owner);
      return ok({});
    });
  }

  private registerDrawingRoutes(): void {
    this.api('GET', '/drawings/:id', (req) => {
      const { drawing, version } = this.drawingVersion(req);
      return ok(this.drawingView(drawing.id, version.versionId));
    });
    this.api('GET', '/drawings/:id/line_items', (req) => ok(this.drawingVersion(req).version.lineItems));
    this.api('GET', '/drawings/:id/takeoff_items', (req) => {
      const { takeoff_items } = this.drawingVersion(req).version.takeoff;
      return ok({ takeoff_items: takeoff_items.map((t) => ({ ...t, product_id: bareNumber(t.product_id) })) });
    });
    this.api('GET', '/drawings/:id/field_data', (req) => ok(this.drawingVersion(req).version.fieldData));
  }

  private registerProposalRoutes(): void {
    this.api('GET', '/products', (req) => {
      const orderBy = req.query.get('order_by') ?? 'create_at';
      const order = req.query.get('order') ?? 'desc';
      if (orderBy !== 'create_at' && orderBy !== 'update_at') throw bad('order_by must be create_at or update_at');
      if (order !== 'asc' && order !== 'desc') throw bad('order must be asc or desc');
      const seq = orderBy === 'create_at' ? this.createdSeq : this.activitySeq;
      const sign = order === 'asc' ? 1 : -1;
      const list = [...this.products.values()].sort((a, b) => sign * (seq.get(a.id)! - seq.get(b.id)!));
      return ok(paginate(list, req.query).map((p) => ({ ...p, id: bareNumber(p.id) })));
    });

    this.api('GET', '/proposal_templates', (req) => ok(paginate([...this.templates.values()], req.query)));

    this.api('GET', '/proposals', (req) => {
      const projectId = req.query.get('project_id');
      const list = [...this.proposals.values()]
        .filter((p) => !projectId || p.project_id === projectId)
        .sort((a, b) => this.activitySeq.get(b.proposal_id)! - this.activitySeq.get(a.proposal_id)!);
      return ok(paginate(list, req.query).map((p) => ({ ...p, proposal_id: bareNumber(p.proposal_id) })));
    });

    this.api('POST', '/export_proposal_pdf', (req) => {
      const body = objectBody(req);
      const templateId = idText(body.template_id);
      const drawingId = idText(body.drawing_id);
      if (!templateId || !drawingId) throw bad('template_id and drawing_id are required');
      if (!this.templates.has(templateId)) throw bad(`unknown template ${templateId}`);
      const drawing = this.drawings.get(drawingId);
      if (!drawing) throw bad(`unknown drawing ${drawingId}`);
      const n = this.exports.length + 1;
      const url = this.serveAt(`/files/proposals/${n}.pdf`, makePdf(`proposal template=${templateId} drawing=${drawingId} n=${n}`), 'application/pdf');
      this.exports.push({ n, templateId, drawingId, drawingVersionId: drawing.versionId, url, at: Date.now() });
      return ok({ url });
    });

    this.api('GET', '/proposals/:proposalId/payments', (req) => {
      const list = this.payments.get(req.params.proposalId);
      if (!list) throw notFound('proposal');
      return ok(paginate(list, req.query));
    });
  }

  private registerCrmRoutes(): void {
    this.api('POST', '/appointment_crm/associate_project', (req) => {
      this.calls.a1++;
      const body = exactBody(req);
      if (typeof body.appointment_id !== 'string' || typeof body.project_id !== 'string') throw bad('appointment_id and project_id are required strings');
      const problem = this.associate(body.appointment_id, body.project_id);
      if (problem) throw new HttpError(problem === 'project not found' ? 404 : 400, problem);
      return ok(projectView(this.project(body.project_id), 'bare'));
    });

    this.api('POST', '/appointment_crm/batch/associate_project', (req) => {
      this.calls.a2++;
      const items = exactBody(req).items;
      if (!Array.isArray(items)) throw bad('items is required');
      if (items.length > this.a2MaxItems) throw bad(`at most ${this.a2MaxItems} items per request`);
      const success_items: { appointment_id: string; project_id: string }[] = [];
      const fail_items: unknown[] = [];
      for (const item of items as Record<string, unknown>[]) {
        const appointment_id = item?.appointment_id;
        const project_id = item?.project_id;
        const problem =
          typeof appointment_id === 'string' && typeof project_id === 'string'
            ? this.associate(appointment_id, project_id)
            : 'appointment_id and project_id must be strings';
        if (!problem) success_items.push({ appointment_id: appointment_id as string, project_id: project_id as string });
        else if (this.failItemStyle === 'flat') fail_items.push({ appointment_id, project_id, message: problem });
        else fail_items.push({ data: { appointment_id, project_id }, message: problem });
      }
      return ok({ success_items, fail_items });
    });

    for (const method of ['GET', 'POST']) {
      this.api(method, '/appointment_crm/connected_product/:productId', (req) => {
        this.calls.a3++;
        if (req.method !== this.a3Method) throw new HttpError(405, 'method not allowed');
        const external = this.productConnections.get(req.params.productId);
        if (external === undefined) throw notFound('connected product');
        return ok({ connected_product_id: external });
      });
    }

    this.api('POST', '/record_crm/associate_project', (req) => {
      this.calls.c1++;
      const body = exactBody(req);
      const module = body.record_crm_module as RecordModule;
      const recordId = body.record_crm_record_id;
      const projectId = body.project_id;
      if (!RECORD_MODULES.includes(module)) throw bad(`record_crm_module must be one of ${RECORD_MODULES.join(', ')}`);
      if (typeof recordId !== 'string' || recordId === '') throw bad('record_crm_record_id is required');
      if (!(projectId instanceof LosslessNumber) || !/^\d+$/.test(projectId.value)) throw bad('project_id must be an integer');
      const project = this.project(projectId.value);
      this.recordAssociations.set(project.id, { module, recordId });
      return ok(projectView(project, 'string'));
    });
  }

  private registerFileRoutes(): void {
    this.route('GET', '/files/drawings/:id/:file', (req) => {
      const match = /^(.+)\.(pdf|png)$/.exec(req.params.file);
      const drawing = this.drawings.get(req.params.id);
      const version = match && drawing ? findVersion(drawing, match[1]) : undefined;
      if (!match || !version) return { status: 404, body: { error: 'not found' } };
      return match[2] === 'pdf'
        ? { status: 200, raw: version.pdf, headers: { 'content-type': 'application/pdf' } }
        : {
            status: 200,
            raw: Buffer.concat([PNG_SIGNATURE, Buffer.from(` drawing ${drawing!.id} ${version.versionId}`)]),
            headers: { 'content-type': 'image/png' },
          };
    });
    const blob: SimHandler = (req) => {
      const file = this.blobs.get(req.path);
      return file ? { status: 200, raw: file.bytes, headers: { 'content-type': file.contentType } } : { status: 404, body: { error: 'not found' } };
    };
    this.route('GET', '/files/blobs/:name', blob);
    this.route('GET', '/files/proposals/:name', blob);
  }

  // ---- helpers ---------------------------------------------------------------------------------------------------

  /** Registers a `/v1` route behind the bearer check; HttpErrors become `{error}` answers. */
  private api(method: string, path: string, handler: SimHandler): void {
    this.route(method, `/v1${path}`, async (req) => {
      if (req.headers.authorization !== `Bearer ${this.token}`) return { status: 401, body: { error: 'wrong API token' } };
      try {
        return await handler(req);
      } catch (err) {
        if (err instanceof HttpError) return { status: err.status, body: { error: err.message } };
        throw err;
      }
    });
  }

  private project(id: string): Project {
    const project = this.projects.get(id);
    if (!project) throw notFound('project');
    return project;
  }

  private drawingVersion(req: SimRequest): { drawing: SimDrawing; version: DrawingVersion } {
    const drawing = this.drawings.get(req.params.id);
    if (!drawing) throw notFound('drawing');
    const wanted = req.query.get('drawing_version_id');
    const version = wanted === null ? drawing : findVersion(drawing, wanted);
    if (!version) throw notFound('drawing version');
    return { drawing, version };
  }

  private projectsNewestFirst(): Project[] {
    return [...this.projects.values()].sort((a, b) => b.created_at.localeCompare(a.created_at) || this.createdSeq.get(b.id)! - this.createdSeq.get(a.id)!);
  }

  private nameProblem(name: string, exceptId?: string): string | undefined {
    if (name.trim() === '') return 'name must not be empty';
    if (/[:/\\]/.test(name)) return 'name must not contain : / or \\';
    if (name.startsWith('.')) return 'name must not start with .';
    if (name.length > 200) return 'name must be at most 200 characters';
    for (const p of this.projects.values()) if (p.name === name && p.id !== exceptId) return 'a project with this name already exists';
    return undefined;
  }

  private checkName(name: string, exceptId?: string): void {
    const problem = this.nameProblem(name, exceptId);
    if (problem) throw bad(problem);
  }

  /** Returns the reason when the association is refused; re-associating the same pair is fine. */
  private associate(appointmentId: string, projectId: string): string | undefined {
    if (!this.projects.has(projectId)) return 'project not found';
    const current = this.appointmentAssociations.get(projectId);
    if (current === appointmentId) return undefined;
    if (current !== undefined) return 'project already associated with an appointment';
    for (const appointment of this.appointmentAssociations.values()) {
      if (appointment === appointmentId) return 'appointment already associated with another project';
    }
    this.appointmentAssociations.set(projectId, appointmentId);
    return undefined;
  }

  private async importedPdf(req: SimRequest): Promise<{ pdf: Buffer; name: string }> {
    const type = String(req.headers['content-type'] ?? '');
    let fileUrl: unknown;
    if (type.startsWith('multipart/form-data')) {
      const form = await parseMultipart(req);
      if (form.file) return { pdf: form.file.bytes, name: form.file.name.replace(/\.pdf$/i, '') || 'Imported' };
      fileUrl = form.fields.file_url;
    } else {
      fileUrl = objectBody(req).file_url;
    }
    if (typeof fileUrl !== 'string' || fileUrl === '') throw bad('file or file_url is required');
    let res: Response;
    try {
      res = await fetch(fileUrl);
    } catch {
      throw bad('could not download file_url');
    }
    if (!res.ok) throw bad(`could not download file_url (${res.status})`);
    const name = decodeURIComponent(new URL(fileUrl).pathname.split('/').pop() ?? '').replace(/\.pdf$/i, '');
    return { pdf: Buffer.from(await res.arrayBuffer()), name: name || 'Imported' };
  }

  private fillApproval(proposal: Proposal): void {
    const drawing = [...this.drawings.values()].find((d) => d.projectId === proposal.project_id);
    proposal.approved_option ??= { drawing_id: drawing?.id ?? this.newId() };
    proposal.total ??= this.drawings.get(proposal.approved_option.drawing_id)?.lineItems.total ?? 1000;
    proposal.pdf_url ??= this.serveFile(makePdf(`signed proposal ${proposal.proposal_id}`));
  }

  private serveAt(path: string, bytes: Buffer, contentType: string): string {
    const url = `${this.url}${path}`;
    this.blobs.set(path, { bytes, contentType });
    return url;
  }

  private defaultLineItems(): LineItemsResult {
    while (this.products.size < 2) this.addProduct();
    const [fence, gate] = [...this.products.values()];
    return {
      line_items: [
        {
          name: fence.name,
          quantity: 10,
          price: 25,
          cost: 15,
          total: 250,
          sku: fence.sku,
          unit: 'ft',
          product_id: fence.id,
          price_part_items: [{ name: `${fence.name} panel`, sku: fence.sku, price: 250, cost: 150, quantity: 10, unit: 'ft' }],
        },
        { name: gate.name, quantity: 2, price: 100, cost: 60, total: 200, sku: gate.sku, unit: 'ea', product_id: gate.id, price_part_items: [] },
        { name: 'Custom labor', quantity: 1, total: 150, cost: null },
      ],
      subtotal: 600,
      discount: -50,
      discount_description: 'Spring promotion',
      markup: 30,
      markup_description: 'Rush fee',
      taxes: [{ name: 'Sales tax', total: 46.4 }],
      total: 626.4,
      drawing_version_id: '',
    };
  }

  private created(id: string): void {
    this.createdSeq.set(id, ++this.tick);
  }

  private touched(id: string): void {
    this.activitySeq.set(id, ++this.tick);
  }
}

function ok(body: unknown): SimResponse {
  return { status: 200, body };
}

function projectView(project: Project, id: 'bare' | 'string'): unknown {
  return { ...project, id: id === 'bare' ? bareNumber(project.id) : project.id };
}

function projectFields(body: Record<string, unknown>): Partial<Project> {
  const fields: Partial<Project> = {};
  if (body.customer !== undefined) fields.customer = body.customer as Project['customer'];
  if (body.job_number !== undefined) fields.job_number = String(body.job_number);
  if (body.work_site_address !== undefined) fields.work_site_address = body.work_site_address as Project['work_site_address'];
  if (body.sales_rep !== undefined) fields.sales_rep = body.sales_rep as Project['sales_rep'];
  if (body.tags !== undefined) {
    if (!isStringList(body.tags)) throw bad('tags must be a list of strings');
    fields.tags = body.tags;
  }
  return fields;
}

function findVersion(drawing: SimDrawing, versionId: string): DrawingVersion | undefined {
  return versionId === drawing.versionId ? drawing : drawing.versions.find((v) => v.versionId === versionId);
}

/** `page` (from 1) and `per_page` (default 10); a page past the end is empty. */
function paginate<T>(items: T[], query: URLSearchParams): T[] {
  const page = intParam(query, 'page', 1);
  const perPage = intParam(query, 'per_page', 10);
  return items.slice((page - 1) * perPage, page * perPage);
}

function intParam(query: URLSearchParams, name: string, fallback: number): number {
  const text = query.get(name);
  if (text === null) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw bad(`${name} must be a positive integer`);
  return Number(text);
}

function dateParam(query: URLSearchParams, name: string): number | undefined {
  const text = query.get(name);
  if (text === null) return undefined;
  const at = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
  if (Number.isNaN(at)) throw bad(`${name} must be an ISO 8601 datetime`);
  return at;
}

/** The JSON body as parsed by the base (big ints as exact strings); parsed here too when the content type is not JSON. */
function objectBody(req: SimRequest): Record<string, unknown> {
  let value = req.json;
  if (value === undefined && req.body.length > 0) {
    try {
      value = parseExactJson(req.body.toString('utf8'));
    } catch {
      throw bad('body is not JSON');
    }
  }
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('body must be a JSON object');
  return value as Record<string, unknown>;
}

/** The body with every number kept as a LosslessNumber, so a JSON integer can be told from a JSON string. */
function exactBody(req: SimRequest): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseLossless(req.body.toString('utf8'));
  } catch {
    throw bad('body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('body must be a JSON object');
  return value as Record<string, unknown>;
}

function parseMultipart(req: SimRequest): Promise<{ file?: { name: string; bytes: Buffer }; fields: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers });
    } catch {
      reject(bad('malformed multipart form'));
      return;
    }
    const fields: Record<string, string> = {};
    let file: { name: string; bytes: Buffer } | undefined;
    const pending: Promise<void>[] = [];
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      pending.push(
        new Promise((done) => {
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            if (field === 'file') file = { name: info.filename ?? '', bytes: Buffer.concat(chunks) };
            done();
          });
        }),
      );
    });
    parser.on('field', (name, value) => (fields[name] = value));
    parser.on('close', () => void Promise.all(pending).then(() => resolve({ file, fields })));
    parser.on('error', () => reject(bad('malformed multipart form')));
    parser.end(req.body);
  });
}

function takeoffFrom(lineItems: LineItemsResult): TakeoffResult {
  return {
    takeoff_items: lineItems.line_items
      .filter((item) => item.product_id)
      .map((item) => ({
        name: item.name,
        quantity: item.quantity,
        unit: item.unit ?? 'ea',
        sku: item.sku ?? '',
        product_id: item.product_id!,
        items: [
          {
            quantity: item.quantity,
            sequence_number: '1',
            unit: item.unit ?? 'ea',
            attributes: [
              { name: 'Color', type: 'TEXT', value: 'White' },
              { name: 'Installed', type: 'CHECKBOX', value: false },
            ],
          },
        ],
      })),
  };
}

function defaultFieldData(): FieldDataResult {
  return {
    groups: [
      {
        name: 'Site',
        field_data: [
          { name: 'Gate code', type: 'TEXT', value: '1234' },
          { name: 'Dog on site', type: 'SWITCH', value: true },
          { name: 'Material', type: 'SELECT', value: ['Vinyl'] },
          { name: 'Install date', type: 'DATE', value: '2024-05-01' },
        ],
      },
    ],
  };
}
