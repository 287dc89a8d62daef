/** The simulated appointment CRM's records: what the simulator keeps and what its queries read. */

export type FileCategory = 'drawing' | 'proposal';

export interface SimFile {
  id: string;
  name: string;
  category: FileCategory;
  size: number;
  contentType: string;
  bytes: Buffer;
  uploadedAt: number;
}

export interface SimNote {
  id: string;
  text: string;
  created_at: string;
}

export interface SimAddress {
  street: string | null;
  city: string | null;
  state: string | null;
  zip_code: string | null;
  country: string | null;
}

export interface SimCustomer {
  name: string | null;
  email: string | null;
  phone: string | null;
  address: SimAddress | null;
}

/** The fields the listing and the search answer with; null where the CRM does not know them. */
export interface SimAppointmentFields {
  status: string;
  scheduled_at: string | null;
  ends_at: string | null;
  job_number: string | null;
  customer: SimCustomer | null;
  sales_rep: { name: string | null; email: string | null; phone: string | null } | null;
  /** Where the appointment opens in the CRM (optional in the contract); left out of answers when unset. */
  web_url?: string;
}

export interface SimAppointment extends SimAppointmentFields {
  id: string;
  /** ISO 8601 with milliseconds; bumped by every change of the appointment, its status, its sale or its files. */
  updated_at: string;
  /** Who made that change: a person's name, or the API key's user for a write with the key (docs/appointment-crm.md). */
  updated_by: string | null;
  files: SimFile[];
  sale: unknown | null;
  /** When and by whom the sale was last put, edited or deleted: answered beside it (docs/appointment-crm.md, request 1). */
  saleChanged: { updated_at: string; updated_by: string } | null;
  saleHistory: unknown[];
  notes: SimNote[];
}

/** A write that carried an Idempotency-Key, and whether the simulator answered it from an earlier one. */
export interface SimKeyedWrite {
  key: string;
  method: string;
  path: string;
  replayed: boolean;
}

/** One accepted upload; kept even after the file is deleted, so tests can count uploads across replaces and retries. */
export interface SimUpload extends SimFile {
  appointmentId: string;
}
