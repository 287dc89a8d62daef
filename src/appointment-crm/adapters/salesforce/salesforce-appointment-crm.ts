import FormData from 'form-data';
import { OutboundError } from '../../../http/outbound-error.js';
import { withRetries } from '../../../http/retry.js';
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
  type LastChange,
  type Sale,
  type SaleAsHeld,
  type SaleDeleted,
  type UploadFile,
} from '../../appointment-crm.js';
import { LOCKED, lockedError, type SalesforceApi } from './salesforce-api.js';
import type { SchemaNames } from './salesforce-schema.js';
import { OrgDescriber, readablePaths, type DescribedField, type ReadablePaths } from './schema-check.js';
import { relationshipOf, soqlContains, soqlDateTime, soqlId, soqlName, soqlPhonePattern, soqlString } from './soql.js';
import { startOf } from './start-time.js';

/** What marks a file crm-sync uploaded, and its category, in the ContentVersion's Description. */
const CATEGORY_MARK = 'crm-sync category: ';
/** composite/sobjects takes at most 200 records a call (REST API Developer Guide, resources_composite_sobjects_collections_create.htm). */
const COLLECTION_MAX = 200;
/** How long the org's paths, as describe resolved them, are used before describe is read again (an admin may add a field). */
const PATHS_TTL_MS = 15 * 60_000;
/** The appointment's needs read in every SELECT, each a field path from the appointment. */
const READ_NEEDS = [
  'appointment_job_number',
  'appointment_start',
  'appointment_start_time',
  'customer_name',
  'customer_first_name',
  'customer_last_name',
  'customer_email',
  'customer_phone',
  'customer_street',
  'customer_city',
  'customer_state',
  'customer_zip',
  'sales_rep_name',
  'sales_rep_email',
] as const;

type Row = Record<string, unknown>;

export interface SalesforceSchema {
  names: SchemaNames;
  /** The value of the result pick list that means Sold in this org. */
  soldValue: string;
}

/** A page position of the changes listing: the last (SystemModstamp, Id) read. */
interface Keyset {
  t: string;
  id: string;
}

/**
 * The AppointmentCrm of an improveit 360 org (or any org whose names the settings give), over Salesforce's REST API:
 * SOQL for reads (customer and sales rep through relationship fields, one query per page, never one call per
 * appointment), sObject rows for writes, files as ContentVersion linked to the appointment, the sale and its items
 * through sObject Collections. docs/appointment-crm-salesforce.md tells what is read and written.
 */
export class SalesforceAppointmentCrm implements AppointmentCrm {
  constructor(
    readonly api: SalesforceApi,
    readonly schema: SalesforceSchema,
  ) {}

  private paths: { at: number; read: Promise<Readable> } | null = null;
  private saleFields: Promise<DescribedField[] | null> | null = null;

  private get n(): SchemaNames {
    return this.schema.names;
  }

  /**
   * The appointment's paths the org has (describe, once per 15 minutes): an optional need the org lacks is left out
   * of every query ("not in this org"), and the org's time zone is read when a start date and time must be composed.
   */
  private readable(): Promise<Readable> {
    if (!this.paths || Date.now() - this.paths.at > PATHS_TTL_MS) {
      const read = this.readPaths();
      this.paths = { at: Date.now(), read };
      // A failed read is tried again by the next call.
      read.catch(() => (this.paths?.read === read ? (this.paths = null) : null));
    }
    return this.paths.read;
  }

  private async readPaths(): Promise<Readable> {
    const paths = await readablePaths(this.api, this.n);
    if (paths.types.appointment_start !== 'date' || !paths.names.appointment_start_time) return { ...paths, timeZone: null };
    // Organization.TimeZoneSidKey: the org's default time zone (Object Reference, Organization).
    const [org] = await this.api.query<Row>('SOQL organization time zone', 'SELECT TimeZoneSidKey FROM Organization');
    return { ...paths, timeZone: text(org?.TimeZoneSidKey) };
  }

  /** The appointment's page in Lightning Experience, for people (alerts, links from the console). */
  async webUrlOf(appointmentId: string): Promise<string> {
    return this.recordPage((await this.api.session()).instanceUrl, appointmentId);
  }

  /**
   * A record page's URL: `/lightning/r/{objectApiName}/{recordId}/view` on the org's host (Lightning Aura Components
   * Developer Guide, "pageReference Types", Record Page Type, URL format,
   * https://developer.salesforce.com/docs/atlas.en-us.lightning.meta/lightning/components_navigation_page_definitions.htm).
   */
  private recordPage(instanceUrl: string, appointmentId: string): string {
    return `${instanceUrl}/lightning/r/${this.n.appointment}/${encodeURIComponent(appointmentId)}/view`;
  }

  /**
   * The values of the org's result pick list, active ones only, with their labels: from the appointment object's
   * describe (REST API Developer Guide, "sObject Describe", resources_sobject_describe.htm: each field's
   * `picklistValues` with `value`, `label`, `active`). Null when the result field is not a pick list (free text).
   */
  async listStatuses(): Promise<AppointmentStatusOption[] | null> {
    const { data } = await this.api.request<{ fields?: Row[] }>({
      endpoint: 'GET /sobjects/:object/describe',
      method: 'GET',
      path: `/sobjects/${soqlName(this.n.appointment)}/describe`,
    });
    const result = (data?.fields ?? []).find((f) => f?.name === this.n.appointment_result);
    if (!result || (result.type !== 'picklist' && result.type !== 'multipicklist') || !Array.isArray(result.picklistValues)) return null;
    return (result.picklistValues as Row[])
      .filter((p) => p?.active !== false && typeof p?.value === 'string')
      .map((p) => ({ value: String(p.value), label: text(p.label) ?? String(p.value) }));
  }

  /**
   * The appointment as the listing reads it (its customer, address, start, job number, sales rep and record page):
   * what a suggestion's acceptance compares and the project view shows. The same SELECT `WHERE Id = …`; an id the
   * org does not have is an unknown appointment. With who changed it last and when (`LastModifiedById`,
   * `SystemModstamp`: REST API Developer Guide, "System Fields"), for the revenue check.
   */
  async getAppointment(appointmentId: string): Promise<Appointment> {
    const id = this.idPath(appointmentId);
    const paths = await this.readable();
    const rows = await this.about(appointmentId, () =>
      this.api.query<Row>('SOQL one appointment', `${this.appointmentSelect(paths)} WHERE Id = ${soqlId(id)} LIMIT 1`),
    );
    if (!rows[0]) throw new AppointmentNotFoundError(appointmentId);
    const { instanceUrl } = await this.api.session();
    // Who changed it last (LastModifiedById; SystemModstamp is the listing's updated_at), for the revenue check.
    return {
      ...this.details(rows[0], instanceUrl, paths),
      updated_by: text(rows[0].LastModifiedById),
      updated_by_crm_sync: await this.isConnectedUser(rows[0].LastModifiedById),
    };
  }

  /**
   * The appointment's latest sale and its items (two queries), with who changed the sale or an item last and when. The
   * sale is read through QueryAll (REST API Developer Guide, "QueryAll", resources_queryall.htm): when the latest sale
   * sits in the Recycle Bin (`IsDeleted`), its delete's SystemModstamp and LastModifiedById say who deleted it and when,
   * which the appointment's own stamp does not.
   */
  async readSale(appointmentId: string): Promise<SaleAsHeld | SaleDeleted | null> {
    const n = this.n;
    // The newest few: a sale crm-sync replaced in the same second as its new one's creation sits beside it.
    const sales = await this.api.queryAll<Row>(
      'SOQL the sale of an appointment',
      `SELECT Id, ${soqlName(n.sale_total)}, IsDeleted, SystemModstamp, LastModifiedById FROM ${soqlName(n.sale)} ` +
        `WHERE ${soqlName(n.sale_appointment)} = ${soqlId(appointmentId)} ORDER BY CreatedDate DESC LIMIT 5`,
    );
    // Stamps are to the second: of changes in the same second, someone else's counts as the last.
    const own = (await this.api.session()).identityUrl?.split('/').at(-1)?.slice(0, 15);
    const rank = (r: Row) => `${String(r.SystemModstamp ?? '')}|${String(r.LastModifiedById ?? '').slice(0, 15) === own ? 0 : 1}`;
    const last = (rows: Row[]) => rows.reduce((a, b) => (rank(b) > rank(a) ? b : a));
    // None live: the one deleted last says who deleted the sale (not the newest by CreatedDate, also to the second: a
    // sale crm-sync replaced in the second of its successor's creation sorts beside it).
    const sale = sales.find((s) => s.IsDeleted !== true) ?? (sales.length > 0 ? last(sales) : undefined);
    if (!sale) return null;
    if (sale.IsDeleted === true) return { deleted: true, ...(await this.lastChangeOf(sale)) };
    const fields = ['Id', n.sale_item_quantity, n.sale_item_total, n.sale_item_description, 'SystemModstamp', 'LastModifiedById'].filter(Boolean);
    const items = await this.api.query<Row>(
      'SOQL the items of a sale',
      `SELECT ${fields.map(soqlName).join(', ')} FROM ${soqlName(n.sale_item)} WHERE ${soqlName(n.sale_item_sale)} = ${soqlId(String(sale.Id))} ORDER BY CreatedDate, Id`,
    );
    const number = (value: unknown) => (typeof value === 'number' ? value : null);
    // The sale's last change is its own or an item's, whichever is later (an item is a record of its own).
    const latest = last([sale, ...items]);
    const modstamp = text(latest.SystemModstamp);
    return {
      total: number(sale[n.sale_total]),
      items: items.map((i) => ({
        name: n.sale_item_description ? text(i[n.sale_item_description]) : null,
        quantity: number(i[n.sale_item_quantity]),
        total: n.sale_item_total ? number(i[n.sale_item_total]) : null,
      })),
      updated_at: modstamp ? isoOf(modstamp) : null,
      updated_by: text(latest.LastModifiedById),
      updated_by_crm_sync: await this.isConnectedUser(latest.LastModifiedById),
    };
  }

  /**
   * Who deleted the appointment's file of a category and when: a file is a ContentDocument of its own, whose delete
   * does not move the appointment's stamp. Its latest version, published to the appointment, read through QueryAll
   * with its document, which sits in the Recycle Bin once deleted (Object Reference, ContentDocument: deleting it
   * deletes its versions; ContentVersion `FirstPublishLocationId`, `Description`, where crm-sync marks the category).
   * Null when no deleted file of that category was published to the appointment.
   */
  async fileRemoval(appointmentId: string, category: string): Promise<LastChange | null> {
    const records = await this.api.queryAll<Row>(
      'SOQL deleted files of an appointment',
      'SELECT ContentDocumentId, Description, ContentDocument.IsDeleted, ContentDocument.SystemModstamp, ContentDocument.LastModifiedById ' +
        `FROM ContentVersion WHERE FirstPublishLocationId = ${soqlId(appointmentId)} AND IsLatest = true`,
    );
    const removed = records
      .filter((v) => valueAt(v, 'ContentDocument.IsDeleted') === true && categoryOf(text(v.Description)) === category)
      .map((v) => ({ SystemModstamp: valueAt(v, 'ContentDocument.SystemModstamp'), LastModifiedById: valueAt(v, 'ContentDocument.LastModifiedById') }))
      .sort((a, b) => String(b.SystemModstamp ?? '').localeCompare(String(a.SystemModstamp ?? '')));
    return removed[0] ? this.lastChangeOf(removed[0]) : null;
  }

  private async lastChangeOf(row: Row): Promise<LastChange> {
    const modstamp = text(row.SystemModstamp);
    return {
      updated_at: modstamp ? isoOf(modstamp) : null,
      updated_by: text(row.LastModifiedById),
      updated_by_crm_sync: await this.isConnectedUser(row.LastModifiedById),
    };
  }

  /** Whether a user id is the one crm-sync connects as (the identity URL's last segment; 15 or 18 characters). */
  private async isConnectedUser(userId: unknown): Promise<boolean | undefined> {
    const own = (await this.api.session()).identityUrl?.split('/').at(-1);
    if (!own || typeof userId !== 'string') return undefined;
    return userId.slice(0, 15) === own.slice(0, 15);
  }

  /**
   * Appointments whose sale, a sale item or a file was created, changed or deleted at or after `since`: each is a record of its own whose changes do not move the appointment's SystemModstamp. All through
   * QueryAll (REST API Developer Guide, "QueryAll", resources_queryall.htm), which reads the Recycle Bin too: a record a
   * person deleted is there with `IsDeleted` true and its delete stamped in SystemModstamp (Object Reference, "System
   * Fields"); Query would leave it out, and the changes pass would find a deleted sale only with the full one. A sale
   * item's appointment is its sale's, through the lookup's relationship; a file's is where its latest version was
   * published (ContentDocument `LatestPublishedVersion`, ContentVersion `FirstPublishLocationId`: how crm-sync uploads).
   */
  async appointmentsWithSaleOrFilesChangedSince(since: Date, mayCall: (calls: number) => boolean): Promise<string[] | null> {
    const n = this.n;
    const from = soqlDateTime(new Date(Math.floor(since.getTime() / 1000) * 1000));
    const itemAppointment = `${relationshipOf(n.sale_item_sale)}.${n.sale_appointment}`;
    const fileAppointment = 'LatestPublishedVersion.FirstPublishLocationId';
    const reads = [
      ['SOQL sales changed or deleted since', n.sale_appointment, n.sale],
      ['SOQL sale items changed or deleted since', itemAppointment, n.sale_item],
      ['SOQL files changed or deleted since', fileAppointment, 'ContentDocument'],
    ] as const;
    if (!mayCall(reads.length)) return null;
    const ids = new Set<string>();
    for (const [endpoint, path, object] of reads) {
      const rows = await this.api.queryAll<Row>(endpoint, `SELECT ${soqlName(path)} FROM ${soqlName(object)} WHERE SystemModstamp >= ${from}`);
      for (const row of rows) {
        const id = text(valueAt(row, path));
        if (id !== null) ids.add(id);
      }
    }
    return [...ids];
  }

  async listChangedAppointments(since: Date | null, cursor: string | null, limit: number): Promise<AppointmentPage> {
    const after = cursor ? decodeKeyset(cursor) : null;
    const where: string[] = [];
    // Keyset paging on (SystemModstamp, Id): an appointment edited meanwhile moves past the position and is read again.
    if (after) where.push(`(SystemModstamp > ${after.t} OR (SystemModstamp = ${after.t} AND Id > ${soqlId(after.id)}))`);
    // From the whole second: orgs keep SystemModstamp to the second (`.000`), so a change in the cursor's second is read
    // (again, at worst: what reads it twice records nothing twice), never missed.
    else if (since) where.push(`SystemModstamp >= ${soqlDateTime(new Date(Math.floor(since.getTime() / 1000) * 1000))}`);
    const paths = await this.readable();
    const soql = `${this.appointmentSelect(paths)}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY SystemModstamp, Id LIMIT ${Math.max(1, Math.min(limit, 2000))}`;
    const rows = await this.api.query<Row>('SOQL changed appointments', soql);
    const { instanceUrl } = await this.api.session();
    const items = rows.map((row) => this.details(row, instanceUrl, paths));
    const last = rows[rows.length - 1];
    const next = rows.length >= limit && last ? encodeKeyset({ t: soqlDateTime(new Date(String(last.SystemModstamp))), id: String(last.Id) }) : null;
    return { items, next_cursor: next };
  }

  async searchAppointments(query: AppointmentSearch, limit = 20): Promise<AppointmentDetails[]> {
    const paths = await this.readable();
    const n = paths.names;
    let where: string;
    let phoneDigits: string | null = null;
    if ('job_number' in query) {
      if (!n.appointment_job_number) return [];
      where = `${soqlName(n.appointment_job_number)} = ${soqlString(query.job_number)}`;
    } else if ('email' in query) {
      if (!n.customer_email) return [];
      // SOQL compares text case-insensitively.
      where = `${soqlName(n.customer_email)} = ${soqlString(query.email)}`;
    } else if ('phone' in query || looksLikePhone(query.q)) {
      phoneDigits = ('phone' in query ? query.phone : query.q).replace(/\D/g, '').slice(-10);
      if (phoneDigits.length < 7 || !n.customer_phone) return [];
      where = `${soqlName(n.customer_phone)} LIKE ${soqlPhonePattern(phoneDigits)}`;
    } else {
      const words = query.q.trim().split(/\s+/).filter(Boolean).slice(0, 5);
      if (words.length === 0) return [];
      const fields = [
        'Name',
        ...(
          [
            'appointment_job_number',
            'customer_name',
            'customer_first_name',
            'customer_last_name',
            'customer_email',
            'customer_phone',
            'sales_rep_name',
          ] as const
        ).map((need) => n[need]),
      ].filter((f): f is string => Boolean(f));
      // Every word somewhere: "Ana Ruiz" finds first name Ana and last name Ruiz.
      where = words.map((word) => `(${fields.map((f) => `${soqlName(f)} LIKE ${soqlContains(word)}`).join(' OR ')})`).join(' AND ');
    }
    const soql = `${this.appointmentSelect(paths)} WHERE ${where} ORDER BY SystemModstamp DESC LIMIT ${Math.max(1, Math.min(limit, 100))}`;
    const rows = await this.api.query<Row>('SOQL search appointments', soql);
    const { instanceUrl } = await this.api.session();
    const found = rows.map((row) => this.details(row, instanceUrl, paths));
    // The LIKE pattern matched the digits in order with anything between and after; the phone, its extension set
    // aside (`512-555-0100 x12`, `… ext. 12`), must end in them.
    return phoneDigits ? found.filter((a) => phoneDigitsOf(a.customer?.phone ?? '').endsWith(phoneDigits!)) : found;
  }

  async listFiles(appointmentId: string): Promise<AppointmentFile[]> {
    await this.record(appointmentId, 'Id');
    return (await this.latestVersions(appointmentId)).map((v) => ({
      id: String(v.ContentDocumentId),
      name: text(v.PathOnClient) ?? text(v.Title) ?? '',
      category: categoryOf(text(v.Description)),
      ...(typeof v.ContentSize === 'number' ? { size: v.ContentSize } : {}),
    }));
  }

  /**
   * The appointment's files (whoever put them there) created at or after `since`: what the service pushed, say. Both
   * kinds a record holds: Salesforce Files (ContentVersion linked through ContentDocumentLink) and classic
   * Attachments (Object Reference, Attachment: `ParentId`, `Name`, `CreatedDate`), since the service's improveit 360
   * integration puts its PDFs in the appointment's "Attachments" without saying which.
   */
  async filesSince(appointmentId: string, since: Date): Promise<Array<{ id: string; name: string; createdAt: string }>> {
    const files = (await this.latestVersions(appointmentId)).map((v) => ({
      id: String(v.ContentDocumentId),
      name: text(v.PathOnClient) ?? text(v.Title) ?? '',
      createdAt: isoOf(text(v.CreatedDate) ?? ''),
    }));
    const attachments = (
      await this.api.query<Row>('SOQL attachments of an appointment', `SELECT Id, Name, CreatedDate FROM Attachment WHERE ParentId = ${soqlId(appointmentId)}`)
    ).map((a) => ({ id: String(a.Id), name: text(a.Name) ?? '', createdAt: isoOf(text(a.CreatedDate) ?? '') }));
    return [...files, ...attachments].filter((f) => new Date(f.createdAt).getTime() >= since.getTime());
  }

  /** The latest version of every file linked to the appointment. */
  private async latestVersions(appointmentId: string): Promise<Row[]> {
    // ContentDocumentLink must be filtered on LinkedEntityId or ContentDocumentId (Object Reference, ContentDocumentLink).
    const links = await this.api.query<Row>(
      'SOQL files of an appointment',
      `SELECT ContentDocumentId FROM ContentDocumentLink WHERE LinkedEntityId = ${soqlId(appointmentId)}`,
    );
    const documentIds = [...new Set(links.map((l) => String(l.ContentDocumentId)))];
    if (documentIds.length === 0) return [];
    return this.api.query<Row>(
      'SOQL latest file versions',
      `SELECT Id, ContentDocumentId, Title, PathOnClient, Description, ContentSize, CreatedDate FROM ContentVersion WHERE IsLatest = true AND ContentDocumentId IN (${documentIds.map(soqlId).join(', ')})`,
    );
  }

  /**
   * A ContentVersion with the PDF, published to the appointment (FirstPublishLocationId links it), as a multipart
   * request: the fields as JSON in `entity_content`, the bytes in `VersionData` (REST API Developer Guide, "Insert or
   * Update Blob Data", dome_sobject_insert_update_blob.htm). The file's id is its ContentDocument's, which deletes it.
   */
  async uploadFile(appointmentId: string, category: FileCategory, file: UploadFile): Promise<AppointmentFile> {
    const form = new FormData();
    const fields = {
      Title: file.fileName.replace(/\.pdf$/i, ''),
      PathOnClient: file.fileName,
      FirstPublishLocationId: appointmentId,
      Description: `${CATEGORY_MARK}${category}`,
    };
    form.append('entity_content', JSON.stringify(fields), { contentType: 'application/json' });
    form.append('VersionData', file.stream, {
      filename: file.fileName,
      contentType: 'application/pdf',
      ...(file.size !== null ? { knownLength: file.size } : {}),
    });
    const headers: Record<string, string> = { ...form.getHeaders() };
    if (file.size !== null) headers['content-length'] = String(form.getLengthSync());
    const created = await this.about(appointmentId, () =>
      this.api.request<Row>({ endpoint: 'POST /sobjects/ContentVersion', method: 'POST', path: '/sobjects/ContentVersion', body: form, headers }),
    );
    const versionId = text(created.data?.id);
    if (!versionId) throw invalid('POST /sobjects/ContentVersion', 'answer has no id');
    const [version] = await this.api.query<Row>('SOQL uploaded version', `SELECT ContentDocumentId FROM ContentVersion WHERE Id = ${soqlId(versionId)}`);
    const documentId = text(version?.ContentDocumentId);
    if (!documentId) throw invalid('SOQL uploaded version', `ContentVersion ${versionId} has no ContentDocumentId`);
    return { id: documentId, name: file.fileName, category };
  }

  /** Deleting the ContentDocument removes every version and link; one already gone counts as deleted. */
  async deleteFile(_appointmentId: string, fileId: string): Promise<void> {
    soqlId(fileId);
    await this.api.request({
      endpoint: 'DELETE /sobjects/ContentDocument/:id',
      method: 'DELETE',
      path: `/sobjects/ContentDocument/${fileId}`,
      acceptStatus: [404],
      answerUnused: true,
    });
  }

  /**
   * Replaces the appointment's sales: the new sale first, then its items in one allOrNone sObject Collections call
   * (a collection cannot refer to a record it creates, so the sale needs its own call), then every older sale of
   * the appointment with its items is deleted. A run cut off anywhere leaves an extra sale the next run deletes, so
   * retries converge on exactly one sale with its items.
   *
   * A create whose answer is lost may still be applied by the org: resent as is, it made a second sale (or the items
   * twice) that nothing deleted. So each create is sent once and a transient failure runs the whole replace again,
   * after waiting as long as the write went unanswered: its listing of older sales then holds what the org applied.
   */
  async putSale(appointmentId: string, sale: Sale, _key?: unknown, stillLatest?: () => Promise<boolean>): Promise<void> {
    await withRetries(() => this.replaceSale(appointmentId, sale, stillLatest), this.api.retryPolicy);
  }

  /**
   * Two pushes of one appointment's sale may run side by side (a lost lock, two replicas): each creates its sale, then
   * the newest (`stillLatest`) deletes every other sale of the appointment, read again after its own create, and one
   * overtaken deletes only its own. So they end with the newest push's sale, never two and never none.
   */
  private async replaceSale(appointmentId: string, sale: Sale, stillLatest?: () => Promise<boolean>): Promise<void> {
    const n = this.n;
    await this.record(appointmentId, 'Id');
    const salesOf = async () =>
      (
        await this.api.query<Row>(
          'SOQL sales of an appointment',
          `SELECT Id FROM ${soqlName(n.sale)} WHERE ${soqlName(n.sale_appointment)} = ${soqlId(appointmentId)}`,
        )
      ).map((r) => String(r.Id));
    let older = await salesOf();
    const soldOn = await this.soldOnValue();
    const [saleId] = await this.create('POST /composite/sobjects (sale)', [
      { attributes: { type: n.sale }, [n.sale_appointment]: appointmentId, [n.sale_total]: sale.total, ...soldOn },
    ]);
    const items = sale.items.map((item) => ({
      attributes: { type: n.sale_item },
      [n.sale_item_sale]: saleId,
      [n.sale_item_quantity]: item.quantity,
      ...(n.sale_item_price ? { [n.sale_item_price]: item.price } : {}),
      ...(n.sale_item_total ? { [n.sale_item_total]: item.total } : {}),
      ...(n.sale_item_description ? { [n.sale_item_description]: item.name } : {}),
      ...(n.sale_item_product && item.external_product_id && isId(item.external_product_id) ? { [n.sale_item_product]: item.external_product_id } : {}),
    }));
    for (let at = 0; at < items.length; at += COLLECTION_MAX) await this.create('POST /composite/sobjects (sale items)', items.slice(at, at + COLLECTION_MAX));
    if (stillLatest) {
      if (!(await stillLatest())) older = [saleId];
      else older = (await salesOf()).filter((id) => id !== saleId);
    }
    if (older.length === 0) return;
    const olderItems = (
      await this.api.query<Row>(
        'SOQL items of older sales',
        `SELECT Id FROM ${soqlName(n.sale_item)} WHERE ${soqlName(n.sale_item_sale)} IN (${older.map(soqlId).join(', ')})`,
      )
    ).map((r) => String(r.Id));
    await this.remove([...olderItems, ...older]);
  }

  soldStatus(): Promise<string> {
    return Promise.resolve(this.schema.soldValue);
  }

  /**
   * The sale's date (improveit 360's `i360__Sold_On__c`) as today, when the org has that field: a date field takes
   * `YYYY-MM-DD`, a date-time the instant (REST API Developer Guide, "Valid Date and DateTime Formats"); a field the
   * org lacks is left out.
   */
  private async soldOnValue(): Promise<Row> {
    const name = this.n.sale_sold_on;
    if (!name) return {};
    this.saleFields ??= new OrgDescriber(this.api).fields(this.n.sale).catch((err: unknown) => {
      this.saleFields = null;
      throw err;
    });
    const field = (await this.saleFields)?.find((f) => f.name.toLowerCase() === name.toLowerCase());
    const now = new Date();
    if (field?.type === 'date') return { [field.name]: now.toISOString().slice(0, 10) };
    if (field?.type === 'datetime') return { [field.name]: now.toISOString() };
    return {};
  }

  /** The result field set to the org's Sold value (the flows ask for `Sold`, the REST contract's word). */
  async setStatus(appointmentId: string, status: string): Promise<void> {
    const value = status === 'Sold' ? this.schema.soldValue : status;
    await this.about(appointmentId, () =>
      this.api.request({
        endpoint: 'PATCH /sobjects/:appointment/:id',
        method: 'PATCH',
        path: `/sobjects/${soqlName(this.n.appointment)}/${this.idPath(appointmentId)}`,
        json: { [this.n.appointment_result]: value },
        answerUnused: true,
      }),
    );
  }

  async listNotes(appointmentId: string): Promise<AppointmentNote[]> {
    const rows = await this.api.query<Row>(
      'SOQL notes of an appointment',
      `SELECT Id, Title, Body, CreatedDate FROM Note WHERE ParentId = ${soqlId(appointmentId)}`,
    );
    return rows.map((r) => ({ id: String(r.Id), text: text(r.Body) ?? text(r.Title) ?? '', created_at: text(r.CreatedDate) }));
  }

  /** A Note on the appointment (Object Reference, Note: ParentId, Title, Body); sent once, its caller looks before trying again. */
  async addNote(appointmentId: string, textOfNote: string): Promise<void> {
    await this.about(appointmentId, () =>
      this.api.request({
        endpoint: 'POST /sobjects/Note',
        method: 'POST',
        path: '/sobjects/Note',
        json: { ParentId: appointmentId, Title: textOfNote.slice(0, 80), Body: textOfNote },
        retry: false,
        answerUnused: true,
      }),
    );
  }

  /** Records through sObject Collections, all or none, sent once (see putSale); their ids in order. */
  private async create(endpoint: string, records: Row[]): Promise<string[]> {
    if (records.length === 0) return [];
    const { data } = await this.api.request<unknown>({
      endpoint,
      method: 'POST',
      path: '/composite/sobjects',
      pathTemplate: '/composite/sobjects',
      json: { allOrNone: true, records },
      retry: false,
    });
    if (!Array.isArray(data)) throw invalid(endpoint, 'expected a list of save results');
    const failed = data.find((r: Row) => r?.success !== true);
    // allOrNone: one record refused rolls every one back, so a lock refusal leaves nothing written and is tried again.
    if (failed && data.some(isLocked)) throw lockedError(endpoint, 200);
    if (failed) throw new OutboundError('appointment_crm', endpoint, 'rejected', 200, JSON.stringify((failed as Row).errors ?? failed).slice(0, 300));
    return data.map((r: Row) => String(r.id));
  }

  /** Deletes records through sObject Collections, 200 a call; ones already gone count as deleted. */
  private async remove(ids: string[]): Promise<void> {
    for (let at = 0; at < ids.length; at += COLLECTION_MAX) {
      const chunk = ids.slice(at, at + COLLECTION_MAX);
      chunk.forEach(soqlId);
      const { data } = await this.api.request<unknown>({
        endpoint: 'DELETE /composite/sobjects',
        method: 'DELETE',
        path: '/composite/sobjects',
        params: { ids: chunk.join(','), allOrNone: 'false' },
      });
      const failed = Array.isArray(data) ? data.find((r: Row) => r?.success !== true && !entityGone(r)) : undefined;
      if (failed && isLocked(failed)) throw lockedError('DELETE /composite/sobjects', 200);
      if (failed)
        throw new OutboundError(
          'appointment_crm',
          'DELETE /composite/sobjects',
          'rejected',
          200,
          JSON.stringify((failed as Row).errors ?? failed).slice(0, 300),
        );
    }
  }

  /** One appointment's fields; a 404 (or an id that is no Salesforce id) is an appointment the org does not have. */
  private async record(appointmentId: string, fields: string): Promise<Row> {
    const { data } = await this.about(appointmentId, () =>
      this.api.request<Row>({
        endpoint: 'GET /sobjects/:appointment/:id',
        method: 'GET',
        path: `/sobjects/${soqlName(this.n.appointment)}/${this.idPath(appointmentId)}`,
        params: { fields },
      }),
    );
    return data ?? {};
  }

  private idPath(appointmentId: string): string {
    if (!isId(appointmentId)) throw new AppointmentNotFoundError(appointmentId);
    return appointmentId;
  }

  private async about<T>(appointmentId: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof OutboundError && err.status === 404) throw new AppointmentNotFoundError(appointmentId);
      throw err;
    }
  }

  /** SELECT of the appointment with every need's path, lookups included: one query per page, never a call per record. */
  private appointmentSelect(paths: Readable): string {
    const n = paths.names;
    const fields = ['Id', 'Name', 'SystemModstamp', 'LastModifiedById', n.appointment_result, ...READ_NEEDS.map((need) => n[need])].filter(Boolean);
    return `SELECT ${[...new Set(fields)].map(soqlName).join(', ')} FROM ${soqlName(n.appointment)}`;
  }

  private details(row: Row, instanceUrl: string, paths: Readable): AppointmentDetails {
    const n = paths.names;
    const at = (need: (typeof READ_NEEDS)[number]) => (n[need] ? text(valueAt(row, n[need])) : null);
    const name = at('customer_name') ?? ([at('customer_first_name'), at('customer_last_name')].filter(Boolean).join(' ') || null);
    const modstamp = text(row.SystemModstamp);
    const start = at('appointment_start');
    const address = { street: at('customer_street'), city: at('customer_city'), state: at('customer_state'), zip_code: at('customer_zip'), country: null };
    const customer = { name, email: at('customer_email'), phone: at('customer_phone'), address: Object.values(address).some(Boolean) ? address : null };
    const rep = { name: at('sales_rep_name'), email: at('sales_rep_email'), phone: null };
    return {
      id: String(row.Id),
      status: text(row[n.appointment_result]) ?? '',
      scheduled_at: start ? (paths.types.appointment_start === 'date' ? startOf(start, at('appointment_start_time'), paths.timeZone) : isoOf(start)) : null,
      ends_at: null,
      job_number: at('appointment_job_number'),
      updated_at: modstamp ? isoOf(modstamp) : null,
      customer: Object.values(customer).some(Boolean) ? customer : null,
      sales_rep: rep.name || rep.email ? rep : null,
      web_url: this.recordPage(instanceUrl, String(row.Id)),
    };
  }
}

/** The org's paths and, when a start is a date with a time beside it, the org's time zone to compose them in. */
type Readable = ReadablePaths & { timeZone: string | null };

/** A path's value in a query's record: `A__r.B__c` is `row.A__r.B__c` (null where a lookup is empty); names without regard to case. */
function valueAt(row: Row, path: string): unknown {
  let current: unknown = row;
  for (const step of path.split('.')) {
    if (!current || typeof current !== 'object') return null;
    const record = current as Row;
    const key = step in record ? step : Object.keys(record).find((k) => k.toLowerCase() === step.toLowerCase());
    current = key === undefined ? null : record[key];
  }
  return current;
}

/** Free text that is a phone number: digits (7 or more) and the usual separators only. */
const looksLikePhone = (q: string): boolean => /^[\d\s().+-]+$/.test(q.trim()) && q.replace(/\D/g, '').length >= 7;

/** A phone's digits without its extension (`x12`, `ext. 12`, `extension 12`, `#12` at the end). */
const phoneDigitsOf = (phone: string): string => phone.replace(/\s*(?:x|ext\.?|extension|#)\s*\d+\s*$/i, '').replace(/\D/g, '');

const isId = (value: string): boolean => /^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$/.test(value);

function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

/** Salesforce writes `2026-11-25T09:12:44.000+0000`; the flows read ISO 8601 in UTC. */
function isoOf(value: string): string {
  const at = new Date(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(at.getTime()) ? value : at.toISOString();
}

function categoryOf(description: string | null): string {
  return description?.startsWith(CATEGORY_MARK) ? description.slice(CATEGORY_MARK.length).trim() : '';
}

/** A SaveResult refused with UNABLE_TO_LOCK_ROW (its errors carry `statusCode`, sObject Collections). */
function isLocked(result: Row): boolean {
  const errors = Array.isArray(result?.errors) ? (result.errors as Row[]) : [];
  return errors.some((e) => e?.statusCode === LOCKED);
}

function entityGone(result: Row): boolean {
  const errors = Array.isArray(result?.errors) ? (result.errors as Row[]) : [];
  return errors.some((e) => e?.statusCode === 'ENTITY_IS_DELETED' || e?.statusCode === 'INVALID_CROSS_REFERENCE_KEY');
}

function invalid(endpoint: string, message: string): OutboundError {
  return new OutboundError('appointment_crm', endpoint, 'invalid_response', 200, message);
}

export function encodeKeyset(keyset: Keyset): string {
  return Buffer.from(JSON.stringify([keyset.t, keyset.id]), 'utf8').toString('base64url');
}

function decodeKeyset(cursor: string): Keyset {
  try {
    const [t, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof t === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z$/.test(t) && typeof id === 'string' && isId(id)) return { t, id };
  } catch {
    // falls through
  }
  throw new OutboundError('appointment_crm', 'SOQL changed appointments', 'rejected', null, 'the listing position is not one this adapter wrote');
}
