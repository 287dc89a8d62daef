import { Inject, Injectable } from '@nestjs/common';
import FormData from 'form-data';
import { APP_CONFIG, type AppConfig } from '../../../config/app-config.js';
import { MetricsService } from '../../../observability/metrics.service.js';
import { idString } from '../../../http/exact-json.js';
import { NO_CONTROL_OR_QUOTE } from '../../../http/file-names.js';
import { notConnected, OutboundError } from '../../../http/outbound-error.js';
import { bearerHttp, type OutboundHttp, type OutboundRequest } from '../../../http/outbound-http.js';
import { isSalesforce, type RestAppointmentCrmConnection } from '../../../config/connection-settings.js';
import { ConnectionsService } from '../../../connections/connections.service.js';
import {
  AppointmentNotFoundError,
  type Appointment,
  type AppointmentCrm,
  type AppointmentDetails,
  type AppointmentFile,
  type AppointmentNote,
  type AppointmentPage,
  type AppointmentSearch,
  type AppointmentStatusOption,
  type FileCategory,
  type IdempotencyKey,
  type Sale,
  type UploadFile,
} from '../../appointment-crm.js';
import { AppointmentShapeError, readAppointmentList, readAppointmentPage, readNotes, readStatuses } from './appointment-reader.js';

const enc = encodeURIComponent;

/**
 * The bundled AppointmentCrm adapter: the REST interface of docs/appointment-crm.md over HTTP with the bearer
 * key, time-outs, typed errors, and retries of 429 (honouring Retry-After), 408/409, 5xx and time-outs. Other 4xx
 * fail at once; a 404 on an appointment becomes AppointmentNotFoundError. Uploads are sent once: their caller
 * retries download and upload together, since a stream can only be read once. Every write carries its caller's
 * Idempotency-Key, the same on each of its tries.
 */
@Injectable()
export class HttpAppointmentCrm implements AppointmentCrm {
  /** The client of the connection in effect; made again when the connection changes. */
  private client: { connection: RestAppointmentCrmConnection; http: OutboundHttp } | null = null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly connections: ConnectionsService,
    private readonly metrics: MetricsService,
  ) {}

  async getAppointment(appointmentId: string): Promise<Appointment> {
    const data = await this.call<Record<string, unknown>>(appointmentId, {
      endpoint: 'GET /appointments/:id',
      method: 'GET',
      path: `/appointments/${enc(appointmentId)}`,
    });
    return { ...data, id: idString(data?.id ?? appointmentId), status: String(data?.status ?? '') };
  }

  async listFiles(appointmentId: string): Promise<AppointmentFile[]> {
    const data = await this.call<unknown>(appointmentId, {
      endpoint: 'GET /appointments/:id/files',
      method: 'GET',
      path: `/appointments/${enc(appointmentId)}/files`,
    });
    if (!Array.isArray(data)) throw this.invalid('GET /appointments/:id/files', 'expected a list of files');
    return data.map((raw) => {
      const file = raw as Record<string, unknown>;
      return {
        id: this.fileId('GET /appointments/:id/files', file?.id),
        name: String(file.name ?? ''),
        category: String(file.category ?? ''),
        size: file.size as number | undefined,
      };
    });
  }

  async listChangedAppointments(since: Date | null, cursor: string | null, limit: number): Promise<AppointmentPage> {
    const endpoint = 'GET /appointments (changed since)';
    const params = { updated_since: since?.toISOString(), cursor: cursor ?? undefined, limit };
    return this.read(endpoint, readAppointmentPage, { endpoint, method: 'GET', path: '/appointments', pathTemplate: '/appointments', params });
  }

  async searchAppointments(query: AppointmentSearch): Promise<AppointmentDetails[]> {
    const endpoint = 'GET /appointments (search)';
    return this.read(endpoint, readAppointmentList, { endpoint, method: 'GET', path: '/appointments', pathTemplate: '/appointments', params: { ...query } });
  }

  async listNotes(appointmentId: string): Promise<AppointmentNote[] | null> {
    // An implementation of the contract older than the notes listing answers 404 here; an unknown appointment is
    // told by the note's POST, which the caller sends next.
    const endpoint = 'GET /appointments/:id/notes';
    const response = await (
      await this.http(endpoint)
    ).request<unknown>({ endpoint, method: 'GET', path: `/appointments/${enc(appointmentId)}/notes`, acceptStatus: [404] });
    if (response.status === 404) return null;
    return this.parsed(endpoint, readNotes, response.data);
  }

  /** `GET /statuses` (optional in the contract): `[{ value, label }]`; null when the CRM answers 404 (it does not list them). */
  async listStatuses(): Promise<AppointmentStatusOption[] | null> {
    const endpoint = 'GET /statuses';
    const response = await (await this.http(endpoint)).request<unknown>({ endpoint, method: 'GET', path: '/statuses', acceptStatus: [404] });
    if (response.status === 404) return null;
    return this.parsed(endpoint, readStatuses, response.data);
  }

  async uploadFile(appointmentId: string, category: FileCategory, file: UploadFile, key: IdempotencyKey): Promise<AppointmentFile> {
    const form = new FormData();
    form.append('category', category);
    form.append('file', file.stream, {
      filename: file.fileName,
      contentType: 'application/pdf',
      ...(file.size !== null ? { knownLength: file.size } : {}),
    });
    const headers: Record<string, string> = { ...form.getHeaders(), ...idempotent(key) };
    if (file.size !== null) headers['content-length'] = String(form.getLengthSync());
    const data = await this.call<Record<string, unknown>>(appointmentId, {
      endpoint: 'POST /appointments/:id/files',
      method: 'POST',
      path: `/appointments/${enc(appointmentId)}/files`,
      body: form,
      headers,
    });
    if (data?.id === undefined || data.id === null) throw this.invalid('POST /appointments/:id/files', 'answer has no file id');
    return { id: this.fileId('POST /appointments/:id/files', data.id), name: String(data.name ?? file.fileName), category: String(data.category ?? category) };
  }

  async deleteFile(appointmentId: string, fileId: string, key: IdempotencyKey): Promise<void> {
    // 404 here means the file went away already (an earlier attempt deleted it): the goal is reached.
    const endpoint = 'DELETE /appointments/:id/files/:fileId';
    await (
      await this.http(endpoint)
    ).request({
      endpoint,
      method: 'DELETE',
      path: `/appointments/${enc(appointmentId)}/files/${enc(fileId)}`,
      headers: idempotent(key),
      acceptStatus: [404],
      answerUnused: true,
    });
  }

  async putSale(appointmentId: string, sale: Sale, key: IdempotencyKey): Promise<void> {
    await this.call(appointmentId, {
      endpoint: 'PUT /appointments/:id/sale',
      method: 'PUT',
      path: `/appointments/${enc(appointmentId)}/sale`,
      json: sale,
      headers: idempotent(key),
      answerUnused: true,
    });
  }

  async setStatus(appointmentId: string, status: string, key: IdempotencyKey): Promise<void> {
    await this.call(appointmentId, {
      endpoint: 'PATCH /appointments/:id',
      method: 'PATCH',
      path: `/appointments/${enc(appointmentId)}`,
      json: { status },
      headers: idempotent(key),
      answerUnused: true,
    });
  }

  async addNote(appointmentId: string, text: string, key: IdempotencyKey): Promise<void> {
    await this.call(appointmentId, {
      endpoint: 'POST /appointments/:id/notes',
      method: 'POST',
      path: `/appointments/${enc(appointmentId)}/notes`,
      json: { text },
      headers: idempotent(key),
      retry: false,
      answerUnused: true,
    });
  }

  /** A read whose answer must have a shape: anything else is an invalid_response. */
  private async read<T>(endpoint: string, reader: (raw: unknown) => T, req: OutboundRequest): Promise<T> {
    const { data } = await (await this.http(endpoint)).request<unknown>(req);
    return this.parsed(endpoint, reader, data);
  }

  private parsed<T>(endpoint: string, reader: (raw: unknown) => T, data: unknown): T {
    try {
      return reader(data);
    } catch (err) {
      if (err instanceof AppointmentShapeError) throw this.invalid(endpoint, err.message);
      throw err;
    }
  }

  /** A call about one appointment: its 404 names the appointment. */
  private async call<T>(appointmentId: string, req: OutboundRequest): Promise<T> {
    try {
      return (await (await this.http(req.endpoint)).request<T>(req)).data;
    } catch (err) {
      if (err instanceof OutboundError && err.status === 404) throw new AppointmentNotFoundError(appointmentId);
      throw err;
    }
  }

  private async http(endpoint: string): Promise<OutboundHttp> {
    const connection = await this.connections.get('appointment_crm');
    if (!connection || isSalesforce(connection)) throw notConnected('appointment_crm', endpoint, 'The appointment CRM (REST)');
    if (this.client?.connection !== connection) this.client = { connection, http: appointmentCrmHttp(connection, this.config, { metrics: this.metrics }) };
    return this.client.http;
  }

  /** A file id as text; anything else is a broken answer, which trying again would not mend. */
  private fileId(endpoint: string, value: unknown): string {
    const id = typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value)) ? String(value) : '';
    // It goes into the path of a later DELETE: no separators, no control characters.
    if (id.length > 200 || !NO_CONTROL_OR_QUOTE.test(id) || /[/?#]/.test(id))
      throw this.invalid(endpoint, `answer has a malformed file id: ${JSON.stringify(value)?.slice(0, 40)}`);
    return id;
  }

  private invalid(endpoint: string, message: string): OutboundError {
    return new OutboundError('appointment_crm', endpoint, 'invalid_response', 200, message);
  }
}

function idempotent(key: IdempotencyKey): Record<string, string> {
  return { 'idempotency-key': key };
}

/** An HTTP client of the appointment CRM with a connection's base URL and key (also the console's check of a new one). */
export const appointmentCrmHttp = (connection: RestAppointmentCrmConnection, config: AppConfig, extra: Parameters<typeof bearerHttp>[3] = {}): OutboundHttp =>
  bearerHttp('appointment_crm', { baseUrl: connection.baseUrl, bearer: connection.apiKey }, config.http, extra);
