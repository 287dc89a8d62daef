/**
 * sObject Collections: create, update and delete up to 200 records in one call, answering a SaveResult per record in
 * order; with `allOrNone` one failure rolls every record back, the failed ones carrying their errors and the others
 * ALL_OR_NONE_OPERATION_ROLLED_BACK (REST API Developer Guide, Create Records Using sObject Collections:
 * https://developer.salesforce.com/docs/platform/api-rest/guide/resources-composite-sobjects-collections-create.html).
 */
import type { SimRequest, SimResponse } from '../../test/sim/common/sim-server.js';
import { to18 } from './ids.js';
import { SfWriteError, type SfError, type SfRecords } from './records.js';
import { errorBody } from './responses.js';
import type { SfObject } from './schema.js';

/** A SaveResult: its errors carry `statusCode` (not `errorCode`) beside `message` and `fields`. */
interface SaveResult {
  id?: string;
  success: boolean;
  errors: Array<{ statusCode: string; message: string; fields: string[] }>;
  /** A create's result, whose id does not survive a roll back (updates and deletes keep theirs). */
  created?: true;
}

const failed = (errors: SfError[]): SaveResult => ({
  success: false,
  errors: errors.map((e) => ({ statusCode: e.errorCode, message: e.message, fields: e.fields })),
});

const ROLLED_BACK = {
  statusCode: 'ALL_OR_NONE_OPERATION_ROLLED_BACK',
  message: 'Record rolled back because not all records were valid and the request was using AllOrNone header',
  fields: [],
};

const MAX_RECORDS = 200;
const tooMany = () => errorBody(400, 'EXCEEDED_ID_LIMIT', `record limit reached. cannot submit more than ${MAX_RECORDS} records into this call`);

export class SObjectCollections {
  constructor(private readonly org: { records: () => SfRecords; userId: () => string; deleteRow: (object: SfObject, id: string) => void }) {}

  /** POST composite/sobjects: `{allOrNone, records}`, each record with `attributes.type` and no id. */
  create(req: SimRequest): SimResponse {
    const body = this.body(req);
    if ('status' in body) return body;
    return this.run(body.allOrNone, body.records, (record) => this.createOne(record));
  }

  /**
   * PATCH composite/sobjects: each record with `attributes.type` and `id`
   * (https://developer.salesforce.com/docs/platform/api-rest/guide/resources-composite-sobjects-collections-update.html).
   */
  update(req: SimRequest): SimResponse {
    const body = this.body(req);
    if ('status' in body) return body;
    return this.run(body.allOrNone, body.records, (record) => this.updateOne(record));
  }

  /** DELETE composite/sobjects?ids=a,b&allOrNone=true: a result per id; one already deleted is ENTITY_IS_DELETED. */
  delete(req: SimRequest): SimResponse {
    const ids = (req.query.get('ids') ?? '').split(',').filter(Boolean);
    if (ids.length > MAX_RECORDS) return tooMany();
    const records = this.org.records();
    return this.run(req.query.get('allOrNone') === 'true', ids, (id): SaveResult => {
      const found = records.byId(id);
      if (!found)
        return {
          id,
          ...failed([
            records.isDeleted(id)
              ? { errorCode: 'ENTITY_IS_DELETED', message: 'entity is deleted', fields: [] }
              : { errorCode: 'MALFORMED_ID', message: `malformed id ${id}`, fields: [] },
          ]),
        };
      if (!found.object.deletable)
        return { id, ...failed([{ errorCode: 'INSUFFICIENT_ACCESS_OR_READONLY', message: 'insufficient access rights on object id', fields: [] }]) };
      this.org.deleteRow(found.object, id);
      return { id: String(found.row.Id), success: true, errors: [] };
    });
  }

  private body(req: SimRequest): { allOrNone: boolean; records: unknown[] } | SimResponse {
    const body = req.json as { allOrNone?: unknown; records?: unknown } | undefined;
    if (!body || typeof body !== 'object' || !Array.isArray(body.records))
      return errorBody(400, 'JSON_PARSER_ERROR', 'The request body must have a records list');
    if (body.records.length > MAX_RECORDS) return tooMany();
    return { allOrNone: body.allOrNone === true, records: body.records };
  }

  /** Runs each item; with `allOrNone` and any failure, puts every table back and marks the successes rolled back. */
  private run<T>(allOrNone: boolean, items: T[], each: (item: T) => SaveResult): SimResponse {
    const records = this.org.records();
    const snapshot = records.snapshot();
    const results = items.map((item) => each(item));
    if (!allOrNone || results.every((r) => r.success)) return { status: 200, body: results.map(({ created: _created, ...r }) => r) };
    records.restore(snapshot);
    return {
      status: 200,
      body: results.map(({ created, ...r }) => (r.success ? { ...(created ? {} : { id: r.id }), success: false, errors: [ROLLED_BACK] } : r)),
    };
  }

  private typed(record: unknown): { object: SfObject; values: Record<string, unknown> } | SaveResult {
    if (!record || typeof record !== 'object' || Array.isArray(record))
      return failed([{ errorCode: 'JSON_PARSER_ERROR', message: 'a record must be a JSON object', fields: [] }]);
    const { attributes, ...values } = record as Record<string, unknown>;
    const type = (attributes as { type?: unknown } | undefined)?.type;
    const object = typeof type === 'string' ? this.org.records().schema.object(type) : undefined;
    if (!object)
      return failed([
        {
          errorCode: 'INVALID_TYPE',
          message: typeof type === 'string' ? `sObject type '${type}' is not supported.` : 'Must send a concrete entity type.',
          fields: [],
        },
      ]);
    return { object, values };
  }

  private createOne(record: unknown): SaveResult {
    const typed = this.typed(record);
    if ('success' in typed) return typed;
    if ('Id' in typed.values || 'id' in typed.values)
      return failed([{ errorCode: 'INVALID_FIELD', message: 'cannot specify Id in an insert call', fields: ['Id'] }]);
    try {
      return {
        id: this.org.records().insert(typed.object, typed.values, { userId: this.org.userId(), at: Date.now() }),
        success: true,
        errors: [],
        created: true,
      };
    } catch (err) {
      if (err instanceof SfWriteError) return failed(err.errors);
      throw err;
    }
  }

  private updateOne(record: unknown): SaveResult {
    const typed = this.typed(record);
    if ('success' in typed) return typed;
    const { id, Id, ...values } = typed.values;
    const recordId = typeof id === 'string' ? id : typeof Id === 'string' ? Id : '';
    const records = this.org.records();
    if (!records.get(typed.object.name, recordId))
      return failed([{ errorCode: 'MALFORMED_ID', message: `${typed.object.label} ID: id value of incorrect type: ${recordId}`, fields: ['Id'] }]);
    try {
      records.update(typed.object, recordId, values, { userId: this.org.userId(), at: Date.now() });
      return { id: to18(recordId)!, success: true, errors: [] };
    } catch (err) {
      if (err instanceof SfWriteError) return { id: to18(recordId)!, ...failed(err.errors) };
      throw err;
    }
  }
}
