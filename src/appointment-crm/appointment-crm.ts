import type { Readable } from 'node:stream';
import { PermanentActionError } from '../actions/action.types.js';

/**
 * The port of the appointment CRM: all the flows of this module (deliveries, actions, the send route, the searches
 * and automations of other modules) see of the CRM. An adapter implements it in its own folder under `adapters/`
 * and AppointmentCrmModule binds one to `APPOINTMENT_CRM`; `adapters/rest/` speaks the REST contract of
 * docs/appointment-crm.md. An adapter answers in these types whatever its CRM's own shapes, keeps ids as exact
 * strings, throws OutboundError (transient or not) for a failed call and AppointmentNotFoundError (below) for an
 * unknown appointment, and honours the idempotency key of every write (the same on every try of one fact).
 */
export interface AppointmentCrm {
  /** The appointment as request 1 of the contract answers it (its other fields kept: the module reads its customer from it). */
  getAppointment(appointmentId: string): Promise<Appointment>;
  listFiles(appointmentId: string): Promise<AppointmentFile[]>;
  /** Appointments changed at or after `since` (null: from the start), oldest change first, one page at a time. */
  listChangedAppointments(since: Date | null, cursor: string | null, limit: number): Promise<AppointmentPage>;
  searchAppointments(query: AppointmentSearch): Promise<AppointmentDetails[]>;
  /** The appointment's notes; null when the CRM has no notes listing (an older implementation of the contract). */
  listNotes(appointmentId: string): Promise<AppointmentNote[] | null>;
  // Every write carries an idempotency key, the same on every try of one fact (see idempotency-key.ts).
  uploadFile(appointmentId: string, category: FileCategory, file: UploadFile, key: IdempotencyKey): Promise<AppointmentFile>;
  /** A file that is gone already counts as deleted. */
  deleteFile(appointmentId: string, fileId: string, key: IdempotencyKey): Promise<void>;
  /**
   * The appointment's one sale. `stillLatest` (when given) says whether this push is still the newest one started for
   * the appointment: a CRM that replaces a sale in several steps keeps only the newest push's sale.
   */
  putSale(appointmentId: string, sale: Sale, key: IdempotencyKey, stillLatest?: () => Promise<boolean>): Promise<void>;
  setStatus(appointmentId: string, status: string, key: IdempotencyKey): Promise<void>;
  /** Sent once: a note has no name to look for, so trying again after an unclear failure is the caller's. */
  addNote(appointmentId: string, text: string, key: IdempotencyKey): Promise<void>;
  /** The statuses an appointment may have, as the CRM lists them; null when it cannot list them (optional in a CRM). */
  listStatuses?(): Promise<AppointmentStatusOption[] | null>;
  /**
   * The appointment's sale as the CRM holds it now, for the revenue check; null when it has none; undefined when the
   * sale comes with getAppointment's `sale` (the REST interface's request 1), so no call is made for it.
   */
  readSale?(appointmentId: string): Promise<SaleAsHeld | SaleDeleted | null | undefined>;
  /**
   * Who removed the appointment's file of a category and when, for a CRM whose appointment stamp does not move with
   * its files (Salesforce: a file is a ContentDocument of its own); null when the CRM holds no such removal; undefined
   * when the adapter in use has no such reading (the appointment's `updated_at` and `updated_by` say it). One call.
   */
  fileRemoval?(appointmentId: string, category: string): Promise<LastChange | null | undefined>;
  /** The status value `setStatus(…, 'Sold')` writes (an org's own result value); optional: `Sold` as the contract says. */
  soldStatus?(): Promise<string>;
  /**
   * Appointments whose sale, sale items or files changed or were deleted at or after `since` (optional: a CRM whose
   * appointment stamp moves with them has none; undefined where the adapter in use has none). It asks `mayCall` for
   * the fewest calls it makes first, and answers null, having made none, when they may not be made.
   */
  appointmentsWithSaleOrFilesChangedSince?(since: Date, mayCall: (calls: number) => boolean): Promise<string[] | null | undefined>;
}

/** Who changed a record last and when, as the CRM keeps it. */
export interface LastChange {
  updated_at: string | null;
  updated_by: string | null;
  /** Whether that last change was made as the user crm-sync connects as; absent when the CRM cannot say. */
  updated_by_crm_sync?: boolean;
}

/** A sale as the CRM holds it: its total and items (an item's total null where the CRM keeps none), who changed it last and when. */
export interface SaleAsHeld extends LastChange {
  total: number | null;
  items: Array<{ name: string | null; quantity: number | null; total: number | null }>;
}

/** The appointment's latest sale was deleted (it sits in the CRM's recycle bin): who deleted it and when. */
export interface SaleDeleted extends LastChange {
  deleted: true;
}

/** A status an appointment may have: the value the CRM stores and the words it shows. */
export interface AppointmentStatusOption {
  value: string;
  label: string;
}

/** Injection token of the AppointmentCrm implementation. */
export const APPOINTMENT_CRM = Symbol('APPOINTMENT_CRM');

export type FileCategory = 'drawing' | 'proposal';

export interface Appointment {
  id: string;
  status: string;
  [field: string]: unknown;
}

/** An appointment as the listing and the search give it; a field the CRM does not know is null. */
export interface AppointmentDetails {
  id: string;
  status: string;
  scheduled_at: string | null;
  ends_at: string | null;
  job_number: string | null;
  updated_at: string | null;
  customer: AppointmentCustomer | null;
  sales_rep: { name: string | null; email: string | null; phone: string | null } | null;
  /** Where the appointment opens in its CRM (http or https), when the CRM says: optional in the contract. */
  web_url?: string | null;
}

export interface AppointmentCustomer {
  name: string | null;
  email: string | null;
  phone: string | null;
  address: PostalAddress | null;
}

export interface PostalAddress {
  street: string | null;
  city: string | null;
  state: string | null;
  zip_code: string | null;
  country: string | null;
}

export interface AppointmentPage {
  items: AppointmentDetails[];
  /** Where the next page starts; null on the last page. */
  next_cursor: string | null;
}

/** One of: free text, or an exact job number, e-mail or phone. */
export type AppointmentSearch = { q: string } | { job_number: string } | { email: string } | { phone: string };

export interface AppointmentNote {
  id: string;
  text: string;
  created_at: string | null;
}

export type IdempotencyKey = string;

export interface AppointmentFile {
  id: string;
  name: string;
  category: string;
  size?: number;
}

/** A PDF to upload: a stream that can be read once, with its length when known. */
export interface UploadFile {
  stream: Readable;
  fileName: string;
  size: number | null;
}

export interface SaleItem {
  external_product_id: string | null;
  product_id: string | null;
  name: string;
  sku: string | null;
  unit: string | null;
  quantity: number;
  price: number | null;
  cost: number | null;
  total: number;
}

export interface Sale {
  items: SaleItem[];
  subtotal: number;
  discount: number;
  discount_description: string;
  markup: number;
  markup_description: string;
  taxes: Array<{ name: string; total: number }>;
  total: number;
  drawing_id: string;
  drawing_version_id: string;
}

/** The CRM does not know the appointment: trying again cannot help, so the action fails at once. */
export class AppointmentNotFoundError extends PermanentActionError {
  constructor(readonly appointmentId: string) {
    super(`appointment ${appointmentId} not found in the appointment CRM (HTTP 404); check the mapping`);
    this.name = 'AppointmentNotFoundError';
  }
}
