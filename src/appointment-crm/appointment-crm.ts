import type { Readable } from 'node:stream';
import { PermanentActionError } from '../sync-log/action.types.js';

/** The interface the appointment flows depend on; the bundled adapter speaks docs/appointment-crm.md over HTTP. */
export interface AppointmentCrm {
  getAppointment(appointmentId: string): Promise<Appointment>;
  listFiles(appointmentId: string): Promise<AppointmentFile[]>;
  uploadFile(appointmentId: string, category: FileCategory, file: UploadFile): Promise<AppointmentFile>;
  /** A file that is gone already counts as deleted. */
  deleteFile(appointmentId: string, fileId: string): Promise<void>;
  putSale(appointmentId: string, sale: Sale): Promise<void>;
  setStatus(appointmentId: string, status: string): Promise<void>;
  addNote(appointmentId: string, text: string): Promise<void>;
}

/** Injection token of the AppointmentCrm implementation. */
export const APPOINTMENT_CRM = Symbol('APPOINTMENT_CRM');

export type FileCategory = 'drawing' | 'proposal';

export interface Appointment {
  id: string;
  status: string;
  [field: string]: unknown;
}

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
