import busboy from 'busboy';
import { SimServer, type SimHandler, type SimRequest, type SimResponse } from '../common/sim-server.js';
import { IdempotencyKeys } from './idempotency-keys.js';
import { appointmentView, listChanged, search } from './appointment-queries.js';
import type { FileCategory, SimAppointment, SimAppointmentFields, SimFile, SimKeyedWrite, SimNote, SimUpload } from './appointment-types.js';

interface ParsedUpload {
  file?: { name: string; contentType: string; bytes: Buffer };
  fields: Record<string, string>;
}

const CATEGORIES: readonly string[] = ['drawing', 'proposal'];
/** Who edits by hand in tests, unless one is named. */
const PERSON = 'Sam Ortiz';

/** The appointment CRM of docs/appointment-crm.md as a real HTTP server, with state tests can seed and inspect. */
export class AppointmentCrmSim extends SimServer {
  readonly appointments = new Map<string, SimAppointment>();
  readonly uploads: SimUpload[] = [];
  readonly apiKey: string;
  /** Answers a repeated Idempotency-Key with the first answer; off: a CRM that ignores the header. */
  honoursIdempotencyKeys = true;
  /** Off: an implementation older than `GET …/notes`, which answers it 404. */
  listsNotes = true;
  /** What `GET /statuses` lists (optional in the contract); null: a CRM that does not list them, which answers 404. */
  statuses: Array<{ value: string; label: string }> | null = [
    { value: 'Scheduled', label: 'Scheduled' },
    { value: 'Confirmed', label: 'Confirmed' },
    { value: 'Completed', label: 'Completed' },
    { value: 'Cancelled', label: 'Cancelled' },
  ];
  /** The user the CRM names for writes made with the API key (what `updated_by` shows for crm-sync's writes). */
  readonly apiKeyUser = 'crm-sync (API key)';
  private readonly keys = new IdempotencyKeys();
  private nextId = 1;

  /** The daemon's environment that points it at this simulator (docs/configuration.md). */
  daemonEnv(): Record<string, string> {
    return { APPOINTMENT_CRM_BASE_URL: this.url, APPOINTMENT_CRM_API_KEY: this.apiKey };
  }

  constructor(options: { apiKey?: string } = {}) {
    super('appointment-crm');
    this.apiKey = options.apiKey ?? 'appt-key';

    this.route(
      'GET',
      '/appointments',
      this.authed((req) =>
        ['q', 'job_number', 'email', 'phone'].some((p) => req.query.has(p)) ? search(this.appointments, req.query) : listChanged(this.appointments, req.query),
      ),
    );

    this.route(
      'GET',
      '/statuses',
      this.authed(() => (this.statuses ? { status: 200, body: this.statuses } : { status: 404, body: { error: 'not_found' } })),
    );

    // The CRM's own page of an appointment, where its `web_url` (see webUrlOf) leads: a person's view, no API key.
    this.route('GET', '/web/appointments/:id', (req) => {
      const appt = this.appointments.get(req.params.id);
      if (!appt) return { status: 404, raw: Buffer.from('no such appointment'), headers: { 'content-type': 'text/plain' } };
      const text = `Appointment ${appt.id}: ${appt.customer?.name ?? 'no customer'}, status ${appt.status}`;
      return {
        status: 200,
        raw: Buffer.from(`<!doctype html><title>${escapeHtml(text)}</title><h1>${escapeHtml(text)}</h1>`),
        headers: { 'content-type': 'text/html' },
      };
    });

    this.route(
      'GET',
      '/appointments/:id',
      this.guarded((_req, appt) => ({ status: 200, body: summary(appt) })),
    );

    this.route(
      'GET',
      '/appointments/:id/files',
      this.guarded((_req, appt) => ({ status: 200, body: appt.files.map(fileSummary) })),
    );

    this.route(
      'POST',
      '/appointments/:id/files',
      this.guarded((req, appt) => this.upload(req, appt)),
    );

    this.route(
      'DELETE',
      '/appointments/:id/files/:fileId',
      this.guarded((req, appt) => {
        const index = appt.files.findIndex((f) => f.id === req.params.fileId);
        if (index < 0) return { status: 404, body: { error: `file ${req.params.fileId} not found` } };
        appt.files.splice(index, 1);
        this.changed(appt, this.apiKeyUser);
        return { status: 204 };
      }),
    );

    this.route(
      'PUT',
      '/appointments/:id/sale',
      this.guarded((req, appt) => {
        const sale = req.json as { items?: unknown } | undefined;
        if (!isObject(sale)) return { status: 400, body: { error: 'body must be a JSON object' } };
        if (!Array.isArray(sale.items)) return { status: 400, body: { error: 'items must be an array' } };
        if (appt.sale !== null) appt.saleHistory.push(appt.sale);
        appt.sale = sale;
        this.changed(appt, this.apiKeyUser, true);
        return { status: 200, body: sale };
      }),
    );

    this.route(
      'PATCH',
      '/appointments/:id',
      this.guarded((req, appt) => {
        const status = isObject(req.json) ? req.json.status : undefined;
        if (typeof status !== 'string') return { status: 400, body: { error: 'status must be a string' } };
        appt.status = status;
        this.changed(appt, this.apiKeyUser);
        return { status: 200, body: summary(appt) };
      }),
    );

    this.route(
      'GET',
      '/appointments/:id/notes',
      this.guarded((_req, appt) => (this.listsNotes ? { status: 200, body: appt.notes } : { status: 404, body: { error: 'not found' } })),
    );

    this.route(
      'POST',
      '/appointments/:id/notes',
      this.guarded((req, appt) => {
        const text = isObject(req.json) ? req.json.text : undefined;
        if (typeof text !== 'string' || text === '') return { status: 400, body: { error: 'text is required' } };
        const note: SimNote = { id: this.newId(), text, created_at: new Date().toISOString() };
        appt.notes.push(note);
        return { status: 201, body: note };
      }),
    );
  }

  /** The address of the appointment's page in this CRM, for its `web_url`. */
  webUrlOf(id: string): string {
    return `${this.url}/web/appointments/${encodeURIComponent(id)}`;
  }

  addAppointment(id: string, partial: Partial<Omit<SimAppointment, 'id'>> = {}): SimAppointment {
    const appt: SimAppointment = {
      id,
      status: partial.status ?? 'Scheduled',
      scheduled_at: partial.scheduled_at ?? null,
      ends_at: partial.ends_at ?? null,
      job_number: partial.job_number ?? null,
      customer: partial.customer ?? null,
      sales_rep: partial.sales_rep ?? null,
      updated_at: partial.updated_at ?? new Date().toISOString(),
      updated_by: partial.updated_by ?? null,
      files: partial.files ?? [],
      sale: partial.sale ?? null,
      saleChanged: partial.saleChanged ?? null,
      saleHistory: partial.saleHistory ?? [],
      notes: partial.notes ?? [],
      ...(partial.web_url ? { web_url: partial.web_url } : {}),
    };
    this.appointments.set(id, appt);
    return appt;
  }

  /** An edit made in the CRM: changes the fields and bumps `updated_at` (to `at`, for equal or chosen times). */
  editAppointment(id: string, changes: Partial<SimAppointmentFields>, at: Date = new Date(), by = PERSON): SimAppointment {
    const appt = this.appointments.get(id);
    if (!appt) throw new Error(`appointment ${id} is not seeded`);
    Object.assign(appt, changes, { updated_at: at.toISOString(), updated_by: by });
    return appt;
  }

  /**
   * A person's edit in the CRM's own screens, for tests of the revenue check: the status, the sale (null deletes it,
   * an object replaces it) or the removal of a category's files; stamps the appointment (and a changed sale) with the
   * person and the time.
   */
  personEdits(id: string, edit: { status?: string; sale?: Record<string, unknown> | null; removeFiles?: FileCategory }, by = PERSON): SimAppointment {
    const appt = this.appointments.get(id);
    if (!appt) throw new Error(`appointment ${id} is not seeded`);
    if (edit.status !== undefined) appt.status = edit.status;
    if (edit.removeFiles) appt.files = appt.files.filter((f) => f.category !== edit.removeFiles);
    if (edit.sale !== undefined) appt.sale = edit.sale === null ? null : { ...(appt.sale as object), ...edit.sale };
    this.changed(appt, by, edit.sale !== undefined);
    return appt;
  }

  /** Stamps a change: the appointment's `updated_at`/`updated_by`, and the sale's own when the sale changed. */
  private changed(appt: SimAppointment, by: string, saleChanged = false): void {
    appt.updated_at = new Date().toISOString();
    appt.updated_by = by;
    if (saleChanged) appt.saleChanged = { updated_at: appt.updated_at, updated_by: by };
  }

  /** Every write that carried an Idempotency-Key, in order. */
  get keyedWrites(): readonly SimKeyedWrite[] {
    return this.keys.writes;
  }

  get(id: string): SimAppointment | undefined {
    return this.appointments.get(id);
  }

  filesOf(id: string, category?: FileCategory): SimFile[] {
    const appt = this.appointments.get(id);
    if (!appt) throw new Error(`appointment ${id} is not seeded`);
    return appt.files.filter((f) => !category || f.category === category);
  }

  fileBytes(id: string, category: FileCategory): Buffer[] {
    return this.filesOf(id, category).map((f) => f.bytes);
  }

  private newId(): string {
    return String(this.nextId++);
  }

  /** Wraps a handler with the bearer-key check and the Idempotency-Key replay of writes. */
  private authed(handler: SimHandler): SimHandler {
    return (req) => {
      if (req.headers.authorization !== `Bearer ${this.apiKey}`) {
        return { status: 401, body: { error: 'missing or invalid API key' } };
      }
      return this.keys.handle(req, this.honoursIdempotencyKeys, handler);
    };
  }

  /** Wraps a handler with the checks of `authed` and the appointment lookup every route under an id shares. */
  private guarded(handler: (req: SimRequest, appt: SimAppointment) => SimResponse | Promise<SimResponse>): SimHandler {
    return this.authed((req) => {
      const appt = this.appointments.get(req.params.id);
      if (!appt) return { status: 404, body: { error: `appointment ${req.params.id} not found` } };
      return handler(req, appt);
    });
  }

  private async upload(req: SimRequest, appt: SimAppointment): Promise<SimResponse> {
    let parsed: ParsedUpload;
    try {
      parsed = await parseMultipart(req);
    } catch (err) {
      return { status: 400, body: { error: `invalid multipart body: ${(err as Error).message}` } };
    }
    const category = parsed.fields.category;
    if (!CATEGORIES.includes(category)) {
      return { status: 400, body: { error: `category must be one of ${CATEGORIES.join(', ')}` } };
    }
    if (!parsed.file) return { status: 400, body: { error: 'file is required' } };
    const file: SimFile = {
      id: this.newId(),
      name: parsed.file.name,
      category: category as FileCategory,
      size: parsed.file.bytes.length,
      contentType: parsed.file.contentType,
      bytes: parsed.file.bytes,
      uploadedAt: Date.now(),
    };
    appt.files.push(file);
    this.changed(appt, this.apiKeyUser);
    this.uploads.push({ ...file, appointmentId: appt.id });
    return { status: 201, body: fileSummary(file) };
  }
}

/** The appointment as `GET /appointments/:id` answers it: the listing's fields and the sale, with when and by whom it last changed. */
function summary(appt: SimAppointment): Record<string, unknown> {
  return { ...appointmentView(appt), sale: isObject(appt.sale) ? { ...appt.sale, ...appt.saleChanged } : appt.sale };
}

function fileSummary(file: SimFile): { id: string; name: string; category: FileCategory; size: number } {
  return { id: file.id, name: file.name, category: file.category, size: file.size };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseMultipart(req: SimRequest): Promise<ParsedUpload> {
  return new Promise((resolve, reject) => {
    const result: ParsedUpload = { fields: {} };
    // utf8 so non-ASCII file names sent raw by FormData/form-data survive (busboy's default is latin1).
    const bb = busboy({ headers: req.headers, defParamCharset: 'utf8' });
    bb.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (name === 'file') {
          result.file = { name: info.filename ?? '', contentType: info.mimeType, bytes: Buffer.concat(chunks) };
        }
      });
    });
    bb.on('field', (name, value) => (result.fields[name] = value));
    bb.on('close', () => resolve(result));
    bb.on('error', reject);
    bb.end(req.body);
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
