import type { Readable } from 'node:stream';
import type { RecordRef } from '../domain/actions.js';
import type { RecordModule } from '../service-api/service-api.types.js';

export type { RecordRef };

/** A Zoho record as Zoho sent it (ids as exact strings, lookups as { id, name }). */
export type ZohoRecord = Record<string, unknown> & { id: string };

/** One page of Get Records: `pageToken` (Zoho's `info.next_page_token`) goes past the first 2,000 records. */
export interface ChangedRecordsQuery {
  fields: string[];
  modifiedSince: Date | null;
  pageToken: string | null;
  page?: number;
  perPage?: number;
}

export interface ChangedRecordsPage {
  records: ZohoRecord[];
  nextPageToken: string | null;
  moreRecords: boolean;
  /** Zoho answered 304: nothing was modified since `modifiedSince`. */
  notModified: boolean;
}

export interface RecordAttachment {
  id: string;
  fileName: string;
}

/** A file to upload: its bytes as a stream (sent once) and its size when known (a download's Content-Length). */
export interface UploadSource {
  stream: Readable;
  size: number | null;
}

export interface RecordNote {
  id: string;
  title: string;
  content: string;
}

/** Whose CRM the connection reaches: its organization and the user who gave consent. */
export interface RecordCrmAccount {
  orgId: string;
  orgName: string;
  userEmail: string | null;
  userName: string | null;
}

/** What the push flows need of the record CRM; `ZohoClient` implements it over Zoho CRM's v8 REST API. */
export interface RecordCrm {
  /** The first attachment of the record whose file name matches, reading every page; null when none does. */
  findAttachment(record: RecordRef, matches: (fileName: string) => boolean): Promise<RecordAttachment | null>;
  /**
   * Uploads a file as a new attachment; `open` is called for each try (a stream can be sent once). Not retried
   * on transient failures: the caller checks for the attachment before trying again. Returns the attachment id.
   * The upload is sent with a Content-Length: without a known size the file is spooled to learn it.
   */
  uploadAttachment(record: RecordRef, fileName: string, open: () => Promise<UploadSource>): Promise<string>;
  listNotes(record: RecordRef): Promise<RecordNote[]>;
  /** Adds a note; not retried on transient failures (see uploadAttachment). Returns the note id. */
  addNote(record: RecordRef, title: string, content: string): Promise<string>;
  /** One page of the module's records modified since the date (all when null), oldest change first. */
  listChangedRecords(module: RecordModule, query: ChangedRecordsQuery): Promise<ChangedRecordsPage>;
  /** The records of these ids that exist, asked 100 ids per call (Zoho's limit); ids not found are left out. */
  getRecordsByIds(module: RecordModule, ids: string[], fields: string[]): Promise<ZohoRecord[]>;
  /** The record's name as people know it (Deal_Name, Full_Name or Subject); null when it has none or is gone. */
  recordName(record: RecordRef): Promise<string | null>;
  /** Records of a module matching a search (Zoho's search API); none: []. */
  searchRecords(module: RecordModule, query: RecordSearch): Promise<ZohoRecord[]>;
  /**
   * Whether the CRM can be called: null when a token can be obtained with every scope crm-sync needs and it reaches a
   * CRM organization, else the reason (a shortfall of scopes starts with RECONNECT_TO_GRANT).
   */
  accessProblem(): Promise<string | null>;
  /** Where the org's records open in the CRM's web app (a record: `<base>/tab/<module>/<id>`); null when not known now. */
  webBase(): Promise<string | null>;
  /**
   * The organization and user of the connection in effect, read anew unless read no longer than `maxAgeMs` ago (by any
   * replica); null when it reaches no CRM organization.
   */
  connectedAccount(maxAgeMs?: number): Promise<RecordCrmAccount | null>;
}

/** One search parameter of Zoho's search API: free text (`word`), an e-mail, a phone, or `criteria` on one field. */
export type RecordSearch = { word: string } | { email: string } | { phone: string } | { field: string; equals: string };

/** The fields that name a record, by module: what people call a deal, a quote, a lead or a contact. */
export const RECORD_NAME_FIELDS = ['Deal_Name', 'Subject', 'Full_Name', 'Last_Name'] as const;

export function recordNameOf(record: Record<string, unknown>): string | null {
  for (const field of RECORD_NAME_FIELDS) {
    const value = record[field];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return null;
}

export const RECORD_CRM = Symbol('RECORD_CRM');

export const recordTarget = (record: RecordRef): string => `${record.module}/${record.recordId}`;
