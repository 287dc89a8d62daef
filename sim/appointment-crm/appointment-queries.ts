import type { SimResponse } from '../common/sim-server.js';
import type { SimAppointment } from './appointment-types.js';

const MAX_PAGE = 500;
const DEFAULT_PAGE = 100;
const MAX_SEARCH = 100;
const DEFAULT_SEARCH = 20;

/** The appointment as the listing and the search answer it. */
export function appointmentView(appt: SimAppointment): Record<string, unknown> {
  const { id, status, scheduled_at, ends_at, job_number, updated_at, updated_by, customer, sales_rep, web_url } = appt;
  return { id, status, scheduled_at, ends_at, job_number, updated_at, updated_by, customer, sales_rep, ...(web_url ? { web_url } : {}) };
}

/**
 * `GET /appointments?updated_since=&cursor=&limit=`: appointments changed at or after `updated_since`, ordered by
 * `updated_at` then id, so that a page boundary between equal times is stable. The cursor is the position of the
 * last item given (opaque to the client).
 */
export function listChanged(appointments: Map<string, SimAppointment>, query: URLSearchParams): SimResponse {
  const limit = limitOf(query, DEFAULT_PAGE, MAX_PAGE);
  if (limit === null) return badRequest(`limit must be an integer from 1 to ${MAX_PAGE}`);
  const sinceText = query.get('updated_since');
  const since = sinceText === null ? null : Date.parse(sinceText);
  if (since !== null && Number.isNaN(since)) return badRequest('updated_since must be an ISO 8601 time');
  const cursorText = query.get('cursor');
  const after = cursorText ? positionOf(cursorText) : null;
  if (cursorText && !after) return badRequest('cursor is not one this server gave');

  const changed = [...appointments.values()]
    .filter((a) => since === null || Date.parse(a.updated_at) >= since)
    .sort(byChange)
    .filter((a) => !after || byChange(a, { updated_at: after[0], id: after[1] }) > 0);
  const page = changed.slice(0, limit);
  const last = page.at(-1);
  const next_cursor = changed.length > limit && last ? cursorOf(last) : null;
  return { status: 200, body: { items: page.map(appointmentView), next_cursor } };
}

/**
 * `GET /appointments?q=` (any of id, job number, customer name, e-mail or phone, sales rep; case-insensitive, a
 * part is enough), or the exact `job_number`, `email` (case-insensitive) or `phone` (digits compared, the last 10 when
 * both have as many: a country code written on one side only still matches): the most
 * recently changed first.
 */
export function search(appointments: Map<string, SimAppointment>, query: URLSearchParams): SimResponse {
  const limit = limitOf(query, DEFAULT_SEARCH, MAX_SEARCH);
  if (limit === null) return badRequest(`limit must be an integer from 1 to ${MAX_SEARCH}`);
  const matches = matcherOf(query);
  if (!matches) return badRequest('give one of q, job_number, email, phone (not empty)');
  const found = [...appointments.values()].filter(matches).sort((a, b) => byChange(b, a));
  return { status: 200, body: { items: found.slice(0, limit).map(appointmentView) } };
}

function matcherOf(query: URLSearchParams): ((a: SimAppointment) => boolean) | null {
  const q = query.get('q')?.trim().toLowerCase();
  if (q) {
    return (a) =>
      [a.id, a.job_number, a.customer?.name, a.customer?.email, a.customer?.phone, a.sales_rep?.name, a.sales_rep?.email].some((field) =>
        field?.toLowerCase().includes(q),
      ) ||
      (digits(q) !== '' && digits(a.customer?.phone) === digits(q));
  }
  const jobNumber = query.get('job_number');
  if (jobNumber) return (a) => a.job_number === jobNumber;
  const email = query.get('email')?.toLowerCase();
  if (email) return (a) => a.customer?.email?.toLowerCase() === email;
  const phone = digits(query.get('phone'));
  if (phone) return (a) => samePhone(digits(a.customer?.phone), phone);
  return null;
}

function samePhone(one: string, other: string): boolean {
  return one.length >= 10 && other.length >= 10 ? one.slice(-10) === other.slice(-10) : one === other;
}

function byChange(a: Pick<SimAppointment, 'updated_at' | 'id'>, b: Pick<SimAppointment, 'updated_at' | 'id'>): number {
  const time = Date.parse(a.updated_at) - Date.parse(b.updated_at);
  if (time !== 0) return time;
  // Ids are digit strings beyond 2^53: as numbers, the shorter is the smaller; of equal length, the text decides.
  const numeric = /^\d+$/.test(a.id) && /^\d+$/.test(b.id);
  return (numeric ? a.id.length - b.id.length : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function cursorOf(appt: SimAppointment): string {
  return Buffer.from(JSON.stringify([appt.updated_at, appt.id])).toString('base64url');
}

function positionOf(cursor: string): [string, string] | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && !Number.isNaN(Date.parse(String(value[0]))) && typeof value[1] === 'string') {
      return [String(value[0]), String(value[1])];
    }
  } catch {
    // not JSON: not a cursor of this server
  }
  return null;
}

function limitOf(query: URLSearchParams, fallback: number, max: number): number | null {
  const text = query.get('limit');
  if (text === null) return fallback;
  const limit = Number(text);
  return Number.isInteger(limit) && limit >= 1 && limit <= max ? limit : null;
}

function digits(value: string | null | undefined): string {
  return (value ?? '').replace(/\D/g, '');
}

function badRequest(error: string): SimResponse {
  return { status: 400, body: { error } };
}
