import type { SimRequest, SimResponse } from '../common/sim-server.js';
import { parseMultipart } from './multipart.js';
import { isModule, zohoError, zohoTime, type StoredRecord, type ZohoAttachment, type ZohoModule, type ZohoNote } from './zoho-types.js';

/** Whether a request's body came with a Content-Length, or chunked (Transfer-Encoding: chunked). */
function framingOf(req: SimRequest): { contentLength: number | null; chunked: boolean } {
  const length = req.headers['content-length'];
  return {
    contentLength: length === undefined ? null : Number(length),
    chunked: /chunked/i.test(String(req.headers['transfer-encoding'] ?? '')),
  };
}

/** What the related lists read of the simulator's switches (set by the tests on ZohoSim). */
export interface ZohoRelatedListsSettings {
  maxAttachmentBytes: number;
  emptyListStyle: 'no-content' | 'empty-data';
  maxPerPage: number;
  defaultPerPage: number;
  pageRecordsLimit: number;
  notesSuccessStatus: 200 | 201;
  notesFailureStatus: 200 | 201 | 400;
}

/** The records the related lists hang on. */
export interface ZohoRecordAccess {
  findRecord(req: SimRequest): StoredRecord | SimResponse;
  moduleRecords(module: ZohoModule): Map<string, StoredRecord>;
  newId(): string;
}

/** A record's related lists: its Attachments (upload, list, download) and its Notes (list, insert). */
export class ZohoRelatedLists {
  constructor(
    private readonly sim: ZohoRelatedListsSettings,
    private readonly records: ZohoRecordAccess,
  ) {}

  async upload(req: SimRequest): Promise<SimResponse> {
    // Zoho's Upload an Attachment page: the request (its multipart body, not the file alone) at most 100 MB.
    if (req.body.length > this.sim.maxAttachmentBytes) {
      return {
        status: 413,
        body: zohoError('FILE_SIZE_MORE_THAN_ALLOWED_SIZE', 'Please check if the size of the file is in the correct range'),
      };
    }
    const record = this.records.findRecord(req);
    if ('status' in record) return record;
    const { files } = await parseMultipart(req.headers, req.body);
    const file = files.find((f) => f.field === 'file');
    if (!file) {
      return { status: 400, body: zohoError('REQUIRED_PARAM_MISSING', 'One of the expected parameter is missing', { param_name: 'file' }) };
    }
    const createdTime = zohoTime();
    const attachment: ZohoAttachment = {
      id: this.records.newId(),
      fileName: file.filename,
      size: file.bytes.length,
      contentType: file.contentType,
      bytes: file.bytes,
      createdTime,
      framing: framingOf(req),
    };
    record.attachments.push(attachment);
    return {
      status: 200,
      body: {
        data: [
          {
            code: 'SUCCESS',
            details: { id: attachment.id, Modified_Time: createdTime, Created_Time: createdTime },
            message: 'attachment uploaded successfully',
            status: 'success',
          },
        ],
      },
    };
  }

  listAttachments(req: SimRequest): SimResponse {
    const fields = req.query.get('fields');
    if (!fields) {
      return { status: 400, body: zohoError('REQUIRED_PARAM_MISSING', 'One of the expected parameter is missing', { param_name: 'fields' }) };
    }
    const record = this.records.findRecord(req);
    if ('status' in record) return record;
    if (record.attachments.length === 0) return this.emptyList(req);

    const paged = this.pageOf(req, record.attachments);
    if ('status' in paged) return paged;
    const { slice, info } = paged;

    const wanted = new Set(['id', ...fields.split(',').map((f) => f.trim())]);
    const data = slice.map((a) => {
      const full: Record<string, unknown> = {
        id: a.id,
        File_Name: a.fileName,
        Size: String(a.size),
        Created_Time: a.createdTime,
        Modified_Time: a.createdTime,
        Parent_Id: { module: { api_name: req.params.module }, id: record.id },
      };
      return Object.fromEntries(Object.entries(full).filter(([key]) => wanted.has(key)));
    });
    return { status: 200, body: { data, info } };
  }

  private emptyList(req: SimRequest): SimResponse {
    if (this.sim.emptyListStyle === 'no-content') return { status: 204 };
    const perPage = Math.min(this.sim.maxPerPage, Number(req.query.get('per_page') ?? this.sim.defaultPerPage) || this.sim.defaultPerPage);
    const info = { per_page: perPage, next_page_token: null, count: 0, page: 1, previous_page_token: null, page_token_expiry: null, more_records: false };
    return { status: 200, body: { data: [], info } };
  }

  /**
   * One page of a related list: by `page` (and `per_page`) up to `pageRecordsLimit` records, past that only by the
   * `page_token` an earlier page offered in `info.next_page_token` (an opaque string; here the offset).
   */
  private pageOf<T>(req: SimRequest, items: T[], paging: 'tokens' | 'numbers' = 'tokens'): { slice: T[]; info: Record<string, unknown> } | SimResponse {
    const perPage = Math.min(this.sim.maxPerPage, Number(req.query.get('per_page') ?? this.sim.defaultPerPage) || this.sim.defaultPerPage);
    const pageToken = req.query.get('page_token');
    let start: number;
    if (pageToken && paging === 'numbers') {
      return { status: 400, body: zohoError('INVALID_DATA', 'the given parameter is not supported', { param_name: 'page_token' }) };
    }
    if (pageToken) {
      start = Number(Buffer.from(pageToken, 'base64url').toString());
      if (!Number.isInteger(start) || start < 0) {
        return { status: 400, body: zohoError('INVALID_DATA', 'the given page_token is invalid', { param_name: 'page_token' }) };
      }
    } else {
      const page = Number(req.query.get('page') ?? 1) || 1;
      start = (page - 1) * perPage;
      if (paging === 'tokens' && start >= this.sim.pageRecordsLimit) {
        return {
          status: 400,
          body: zohoError(
            'DISCRETE_PAGINATION_LIMIT_EXCEEDED',
            `The limit for discrete pagination has been exceeded; use page_token past ${this.sim.pageRecordsLimit} records`,
            {
              limit: this.sim.pageRecordsLimit,
            },
          ),
        };
      }
    }
    const slice = items.slice(start, start + perPage);
    const more = start + perPage < items.length;
    const info: Record<string, unknown> = { per_page: perPage, count: slice.length, page: Math.floor(start / perPage) + 1, more_records: more };
    if (more && paging === 'tokens') info.next_page_token = Buffer.from(String(start + perPage)).toString('base64url');
    return { slice, info };
  }

  download(req: SimRequest): SimResponse {
    const record = this.records.findRecord(req);
    if ('status' in record) return record;
    const attachment = record.attachments.find((a) => a.id === req.params.attId);
    // Zoho's v8 attachments OpenAPI file: an attachment id it does not know is 404 INVALID_DATA.
    if (!attachment) return { status: 404, body: zohoError('INVALID_DATA', 'the id given seems to be invalid') };
    return {
      status: 200,
      raw: attachment.bytes,
      headers: {
        'content-type': 'application/octet-stream',
        'content-disposition': `attachment;filename="${attachment.fileName}"`,
      },
    };
  }

  /**
   * The Notes related list of a record: `fields` mandatory, 204 when there are none, paged as the SDK pages related
   * records (GetNotesParam: `page`, `per_page`, `fields`; no `page_token`, which is refused).
   */
  listNotes(req: SimRequest): SimResponse {
    const fields = req.query.get('fields');
    if (!fields) {
      return { status: 400, body: zohoError('REQUIRED_PARAM_MISSING', 'One of the expected parameter is missing', { param_name: 'fields' }) };
    }
    const record = this.records.findRecord(req);
    if ('status' in record) return record;
    if (record.notes.length === 0) return this.emptyList(req);
    const paged = this.pageOf(req, record.notes, 'numbers');
    if ('status' in paged) return paged;
    const { slice, info } = paged;
    const wanted = new Set(['id', ...fields.split(',').map((f) => f.trim())]);
    const data = slice.map((n) => {
      const full: Record<string, unknown> = { id: n.id, Note_Title: n.title, Note_Content: n.content, Created_Time: n.createdTime };
      return Object.fromEntries(Object.entries(full).filter(([key]) => wanted.has(key)));
    });
    return { status: 200, body: { data, info } };
  }

  addNotes(req: SimRequest): SimResponse {
    const data = (req.json as { data?: unknown } | undefined)?.data;
    if (!Array.isArray(data) || data.length === 0) {
      return { status: 400, body: zohoError('INVALID_DATA', 'body is not a valid data array', {}) };
    }
    const results = data.map((item: unknown, i) => this.addNote(item, i));
    const anyAdded = results.some((r) => r.status === 'success');
    return { status: anyAdded ? this.sim.notesSuccessStatus : this.sim.notesFailureStatus, body: { data: results } };
  }

  private addNote(item: unknown, index: number): Record<string, unknown> {
    const note = (item ?? {}) as { Note_Title?: unknown; Note_Content?: unknown; Parent_Id?: { module?: { api_name?: unknown }; id?: unknown } };
    const parent = note.Parent_Id;
    if (!parent || parent.id === undefined || parent.module?.api_name === undefined) {
      return zohoError('MANDATORY_NOT_FOUND', 'required field not found', {
        api_name: 'Parent_Id',
        json_path: `$.data[${index}].Parent_Id`,
      });
    }
    const module = String(parent.module.api_name);
    const record = isModule(module) ? this.records.moduleRecords(module).get(String(parent.id)) : undefined;
    if (!record) {
      return zohoError('INVALID_DATA', 'the related id given seems to be invalid', {
        api_name: 'Parent_Id',
        json_path: `$.data[${index}].Parent_Id`,
      });
    }
    const createdTime = zohoTime();
    const stored: ZohoNote = {
      id: this.records.newId(),
      title: String(note.Note_Title ?? ''),
      content: String(note.Note_Content ?? ''),
      createdTime,
    };
    record.notes.push(stored);
    return {
      code: 'SUCCESS',
      details: { id: stored.id, Created_Time: createdTime, Modified_Time: createdTime },
      message: 'record added',
      status: 'success',
    };
  }
}
