/**
 * Salesforce Files: ContentVersion (a file's versions and bytes), ContentDocument (the file) and ContentDocumentLink
 * (where it is shared) (Object Reference, ContentVersion:
 * https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_contentversion.htm).
 */
import type { SimRequest, SimResponse } from '../common/sim-server.js';
import { parseMultipart } from '../zoho/multipart.js';
import { to18 } from './ids.js';
import { SfWriteError, type SfRecords } from './records.js';
import { errorBody, jsonObject } from './responses.js';
import type { SfObject } from './schema.js';
import type { Row } from './soql.js';

/** A file of a record as tests read it: its document, latest version and bytes. */
export interface SfFile {
  contentDocumentId: string;
  contentVersionId: string;
  title: string;
  pathOnClient: string;
  fileExtension: string | null;
  bytes: Buffer;
  createdDate: string;
}

export interface ContentVersionUpload {
  values: Record<string, unknown>;
  bytes: Buffer | null;
}

/**
 * A ContentVersion's body: multipart with an `entity_content` JSON part and a `VersionData` binary part (Insert or
 * Update Blob Data: https://developer.salesforce.com/docs/platform/api-rest/guide/dome-sobject-insert-update-blob.html),
 * or JSON with `VersionData` in base64.
 */
export async function contentVersionUpload(req: SimRequest): Promise<ContentVersionUpload | SimResponse> {
  const type = String(req.headers['content-type'] ?? '');
  if (type.toLowerCase().startsWith('multipart/')) {
    const parts = await parseMultipart(req.headers, req.body);
    const entityFile = parts.files.find((f) => f.field === 'entity_content');
    const entity = entityFile ? entityFile.bytes.toString('utf8') : parts.fields.entity_content;
    const binary = parts.files.find((f) => f.field === 'VersionData');
    if (!entity) return errorBody(400, 'INVALID_MULTIPART_REQUEST', 'The multipart request must have an entity_content part with the fields in JSON');
    let values: unknown;
    try {
      values = JSON.parse(entity);
    } catch {
      return errorBody(400, 'JSON_PARSER_ERROR', 'entity_content is not JSON');
    }
    if (!values || typeof values !== 'object' || Array.isArray(values)) return errorBody(400, 'JSON_PARSER_ERROR', 'entity_content is not a JSON object');
    return { values: values as Record<string, unknown>, bytes: binary?.bytes ?? null };
  }
  const values = jsonObject(req);
  if (!values) return errorBody(400, 'JSON_PARSER_ERROR', 'The request body is not a JSON object');
  const { VersionData: data, ...rest } = values;
  if (data !== undefined && typeof data !== 'string') return errorBody(400, 'JSON_PARSER_ERROR', 'VersionData must be base64 text');
  return { values: rest, bytes: typeof data === 'string' ? Buffer.from(data, 'base64') : null };
}

export class SalesforceFiles {
  /** Every ContentVersion's bytes, by version id, kept after deletion so tests can count uploads. */
  readonly uploads = new Map<string, Buffer>();

  constructor(private readonly org: { records: () => SfRecords; userId: () => string }) {}

  /**
   * A new ContentDocument (or a new version of `ContentDocumentId`'s), linked to `FirstPublishLocationId` and to its
   * owner through ContentDocumentLink rows; all of it or nothing.
   */
  create(given: Record<string, unknown>, bytes: Buffer | null, version: string, at: number): string {
    const records = this.org.records();
    const values = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
    const path = typeof values.PathOnClient === 'string' ? values.PathOnClient : '';
    if (!bytes)
      throw new SfWriteError([{ errorCode: 'REQUIRED_FIELD_MISSING', message: 'Required fields are missing: [VersionData]', fields: ['VersionData'] }]);
    const extension = /\.([^.\\/]+)$/.exec(path)?.[1]?.toLowerCase() ?? null;
    const title = typeof values.Title === 'string' && values.Title ? values.Title : path.replace(/\.[^.\\/]+$/, '');
    const context = { userId: this.org.userId(), at };
    const system = { ...context, trusted: true };
    const existingDocument = typeof values.ContentDocumentId === 'string' ? records.get('ContentDocument', values.ContentDocumentId) : undefined;
    if (values.ContentDocumentId !== undefined && !existingDocument)
      throw new SfWriteError([{ errorCode: 'INVALID_CROSS_REFERENCE_KEY', message: 'invalid cross reference id', fields: ['ContentDocumentId'] }]);
    const versionObject = this.object('ContentVersion');
    const documentObject = this.object('ContentDocument');
    const snapshot = records.snapshot();
    try {
      const versionId = records.insert(versionObject, { ...values, Title: title, VersionData: 'pending' }, context);
      const documentId = String(existingDocument?.Id ?? records.insert(documentObject, { Title: title }, system));
      const olderVersions = this.versionsOf(documentId).filter((v) => v.Id !== versionId);
      for (const older of olderVersions) records.update(versionObject, String(older.Id), { IsLatest: false }, system);
      const described = { ContentSize: bytes.length, FileExtension: extension, FileType: extension?.toUpperCase() ?? 'UNKNOWN' };
      records.update(
        versionObject,
        versionId,
        {
          ContentDocumentId: documentId,
          VersionData: `/services/data/${version}/sobjects/ContentVersion/${versionId}/VersionData`,
          VersionNumber: String(olderVersions.length + 1),
          IsLatest: true,
          ...described,
        },
        system,
      );
      records.update(documentObject, documentId, { Title: title, LatestPublishedVersionId: versionId, ...described }, system);
      if (!existingDocument) {
        const link = this.object('ContentDocumentLink');
        records.insert(link, { ContentDocumentId: documentId, LinkedEntityId: this.org.userId(), ShareType: 'I', Visibility: 'AllUsers' }, context);
        if (typeof values.FirstPublishLocationId === 'string')
          records.insert(
            link,
            { ContentDocumentId: documentId, LinkedEntityId: values.FirstPublishLocationId, ShareType: 'V', Visibility: 'AllUsers' },
            context,
          );
      }
      this.uploads.set(versionId, bytes);
      return versionId;
    } catch (err) {
      records.restore(snapshot);
      throw err;
    }
  }

  /** Deleting a ContentDocument deletes its versions and links (Object Reference, ContentDocument). */
  deleteDocument(documentId: string, userId = this.org.userId(), at = Date.now()): void {
    const records = this.org.records();
    const id = to18(documentId)!;
    const context = { userId, at };
    for (const version of this.versionsOf(id)) records.delete(this.object('ContentVersion'), String(version.Id), context);
    for (const link of records.rows(this.object('ContentDocumentLink')).filter((l) => l.ContentDocumentId === id))
      records.delete(this.object('ContentDocumentLink'), String(link.Id), context);
    records.delete(this.object('ContentDocument'), id, context);
  }

  /** A version's bytes (`sobjects/ContentVersion/{id}/VersionData`). */
  bytesOf(versionId: string): Buffer | undefined {
    const row = this.org.records().get('ContentVersion', versionId);
    return row ? this.uploads.get(String(row.Id)) : undefined;
  }

  /** The files linked to a record, each with its latest version's bytes. */
  filesOf(recordId: string): SfFile[] {
    const records = this.org.records();
    const id = to18(recordId);
    return records
      .rows(this.object('ContentDocumentLink'))
      .filter((link) => link.LinkedEntityId === id)
      .flatMap((link) => {
        const document = records.get('ContentDocument', String(link.ContentDocumentId));
        const version = document && records.get('ContentVersion', String(document.LatestPublishedVersionId));
        if (!document || !version) return [];
        return [
          {
            contentDocumentId: String(document.Id),
            contentVersionId: String(version.Id),
            title: String(version.Title),
            pathOnClient: String(version.PathOnClient),
            fileExtension: (version.FileExtension as string | null) ?? null,
            bytes: this.uploads.get(String(version.Id)) ?? Buffer.alloc(0),
            createdDate: String(version.CreatedDate),
          },
        ];
      });
  }

  private versionsOf(documentId: string): Row[] {
    return this.org
      .records()
      .rows(this.object('ContentVersion'))
      .filter((v) => v.ContentDocumentId === documentId);
  }

  private object(name: string): SfObject {
    const object = this.org.records().schema.object(name);
    if (!object) throw new Error(`the simulated org has no ${name}`);
    return object;
  }
}
