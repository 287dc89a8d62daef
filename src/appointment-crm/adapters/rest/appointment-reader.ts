import { idString, isJsonObject } from '../../../http/exact-json.js';
import type {
  AppointmentCustomer,
  AppointmentDetails,
  AppointmentNote,
  AppointmentPage,
  AppointmentStatusOption,
  PostalAddress,
} from '../../appointment-crm.js';

/** An answer that does not have the contract's shape; the client turns it into an invalid_response error. */
export class AppointmentShapeError extends Error {}

// Tolerant readers: unknown fields are ignored, a missing or null field is null, and the other names some CRMs use
// (starts_at for scheduled_at, postal_code for zip_code) are read too. Only what cannot be done without fails: an item
// that is not an object, or one without an id.

export function readAppointmentPage(raw: unknown): AppointmentPage {
  if (!isJsonObject(raw) || !Array.isArray(raw.items)) throw new AppointmentShapeError('expected { items, next_cursor }');
  const next = raw.next_cursor;
  return { items: raw.items.map(readAppointment), next_cursor: typeof next === 'string' && next !== '' ? next : null };
}

/** A search answers `{ items }`; a bare list is read as well. */
export function readAppointmentList(raw: unknown): AppointmentDetails[] {
  const items = Array.isArray(raw) ? raw : isJsonObject(raw) && Array.isArray(raw.items) ? raw.items : null;
  if (!items) throw new AppointmentShapeError('expected { items }');
  return items.map(readAppointment);
}

export function readAppointment(raw: unknown): AppointmentDetails {
  if (!isJsonObject(raw)) throw new AppointmentShapeError('an appointment is not an object');
  return {
    id: idOf(raw.id, 'an appointment has no id'),
    status: text(raw.status) ?? '',
    scheduled_at: text(raw.scheduled_at ?? raw.starts_at),
    ends_at: text(raw.ends_at),
    job_number: text(raw.job_number),
    updated_at: text(raw.updated_at),
    customer: isJsonObject(raw.customer) ? readCustomer(raw.customer) : null,
    sales_rep: isJsonObject(raw.sales_rep) ? { name: text(raw.sales_rep.name), email: text(raw.sales_rep.email), phone: text(raw.sales_rep.phone) } : null,
    web_url: webUrl(raw.web_url),
  };
}

/** An http(s) address, else null: a link people click never carries another scheme (`javascript:`). */
export function webUrl(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 2000) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}

export function readNotes(raw: unknown): AppointmentNote[] {
  if (!Array.isArray(raw)) throw new AppointmentShapeError('expected a list of notes');
  return raw.map((note) => {
    if (!isJsonObject(note)) throw new AppointmentShapeError('a note is not an object');
    return { id: idOf(note.id, 'a note has no id'), text: text(note.text) ?? '', created_at: text(note.created_at) };
  });
}

/** `GET /statuses`: `[{ value, label }]`; a bare string is a value that is its own label; an item without a value is left out. */
export function readStatuses(raw: unknown): AppointmentStatusOption[] {
  if (!Array.isArray(raw)) throw new AppointmentShapeError('expected a list of statuses');
  return raw.flatMap((item) => {
    const value = typeof item === 'string' ? item : isJsonObject(item) ? text(item.value) : null;
    if (!value) return [];
    const label = isJsonObject(item) ? text(item.label) : null;
    return [{ value, label: label ?? value }];
  });
}

function readCustomer(raw: Record<string, unknown>): AppointmentCustomer {
  return {
    name: text(raw.name),
    email: text(raw.email),
    phone: text(raw.phone),
    address: isJsonObject(raw.address) ? readAddress(raw.address) : null,
  };
}

function readAddress(raw: Record<string, unknown>): PostalAddress {
  return {
    street: text(raw.street),
    city: text(raw.city),
    state: text(raw.state),
    zip_code: text(raw.zip_code ?? raw.postal_code),
    country: text(raw.country),
  };
}

function idOf(value: unknown, missing: string): string {
  if (value === undefined || value === null || value === '') throw new AppointmentShapeError(missing);
  try {
    return idString(value);
  } catch {
    throw new AppointmentShapeError(missing);
  }
}

/** A string field; a number (a job number or postal code sent as one) is read as its digits. */
function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}
