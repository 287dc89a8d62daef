// @ts-check
/**
 * Calls to the admin JSON API with the console's session: an HttpOnly cookie set by `POST /admin/session`, sent by
 * the browser (`credentials: 'same-origin'`); writes carry the header `x-crm-sync-csrf: 1`, which a cross-site form
 * cannot send. Answers are parsed with parseJson, so big integers keep their digits.
 */
import { notify, show } from './dom.js';
import { parseJson } from './json.js';

export const CSRF_HEADER = 'x-crm-sync-csrf';

/**
 * The API's answer types, from the OpenAPI document the daemon serves at /docs (`npm run api-types` writes
 * api-types.d.ts; `npm run typecheck` fails when it is out of date): `Schemas['SyncLogEntryView']`.
 * @typedef {import('./api-types').components['schemas']} Schemas
 */
/**
 * A page of an `/api` list (`ApiPageResponse` in src/common/pagination.ts).
 * @template T
 * @typedef {{ items: T[], next_cursor: string | null }} Page
 */

/** The daemon does not know this session (401); the page has already gone back to the sign-in prompt. */
export class AuthError extends Error {
  constructor() {
    super('not signed in');
    this.name = 'AuthError';
  }
}

/** Any other failure: an HTTP status (0 when the daemon could not be reached), the API's message and answer. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} message
   * @param {any} data the parsed answer (null when none)
   * @param {string} method
   * @param {string} path
   */
  constructor(status, message, data, method, path) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.data = data;
    this.method = method;
    this.path = path;
    /** On a 403: the role the route needs. */
    this.requiredRole = data && typeof data === 'object' && data.required_role ? show(data.required_role) : null;
  }

  /** The route itself is not on this daemon (`code: "route_not_found"`), not a missing record. */
  get routeMissing() {
    return this.status === 404 && this.code === 'route_not_found';
  }

  /** The daemon's stable code of this refusal, when it gives one. */
  get code() {
    return this.data && typeof this.data === 'object' && typeof this.data.code === 'string' ? this.data.code : null;
  }
}

/** @type {(expired: boolean) => void} */
let unauthorized = () => {};

/** Sets what happens when the daemon answers 401 (the session expired or was never there). */
/** @param {(expired: boolean) => void} handler */
export function onUnauthorized(handler) {
  unauthorized = handler;
}

/** @param {any} data */
function messageOf(data) {
  if (!data || typeof data !== 'object') return '';
  const m = data.message;
  if (Array.isArray(m)) return m.map(show).join('; ');
  return m === undefined || m === null ? '' : show(m);
}

/**
 * Calls the API; resolves to the parsed answer (null when empty), rejects with AuthError or ApiError.
 * `body`: an object (sent as JSON) or `{ text, type }` sent as is (a CSV file). `options.status` receives the status.
 */
/**
 * @typedef {object} CallOptions
 * @property {(status: number) => void} [status] receives the status
 * @property {boolean} [noSignOut] a 401 is an ApiError rather than the end of the session
 * @property {number[]} [accept] statuses answered like a success
 */
/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @param {CallOptions} [options]
 * @returns {Promise<any>} the parsed answer (its shape is the route's; callers declare what they read)
 */
export function api(method, path, body, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: 'application/json' };
  if (method !== 'GET' && method !== 'HEAD') headers[CSRF_HEADER] = '1';
  /** @type {RequestInit} */
  const init = { method, headers, cache: 'no-store', credentials: 'same-origin', redirect: 'error' };
  const raw = /** @type {{ text?: unknown, type?: string } | null | undefined} */ (body);
  if (raw && typeof raw === 'object' && typeof raw.text === 'string' && raw.type) {
    headers['Content-Type'] = raw.type;
    init.body = raw.text;
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  return fetch(path, init).then(
    (res) =>
      res.text().then((text) => {
        let data = null;
        if (text) {
          try {
            data = parseJson(text);
          } catch {
            data = { message: text.slice(0, 300) };
          }
        }
        if (options.status) options.status(res.status);
        if (res.status === 401 && !options.noSignOut) {
          unauthorized(true);
          throw new AuthError();
        }
        if (!res.ok && !(options.accept && options.accept.indexOf(res.status) >= 0)) {
          throw new ApiError(res.status, messageOf(data) || 'HTTP ' + res.status, data, method, path);
        }
        return data;
      }),
    (err) => {
      throw new ApiError(0, 'cannot reach the daemon (' + (err && err.message ? err.message : 'network error') + ')', null, method, path);
    },
  );
}

/**
 * `?a=1&b=2` from the parameters that have a value ('' when none has).
 * @param {Record<string, string | number | boolean | null | undefined>} params
 */
export function query(params) {
  const parts = [];
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') parts.push(encodeURIComponent(k) + '=' + encodeURIComponent(v));
  }
  return parts.length ? '?' + parts.join('&') : '';
}

/** What went wrong, in words: a missing route, a role refused (naming it), or the API's message. */
/** @param {unknown} err */
export function describe(err) {
  if (!(err instanceof ApiError)) return err instanceof Error && err.message ? err.message : String(err);
  if (err.routeMissing) return 'not available on this daemon yet (' + err.method + ' ' + err.path.split('?')[0] + ' answered 404)';
  if (err.status === 403) {
    // The daemon's message names the role already ("this route needs the operator role; …").
    if (!err.requiredRole || err.message.indexOf(err.requiredRole) >= 0) return 'Not allowed: ' + err.message;
    return 'Not allowed: needs the ' + err.requiredRole + ' role (' + err.message + ')';
  }
  return err.message;
}

/** A rejection handler that shows `what: <reason>` as an error notice (an AuthError has been dealt with already). */
/**
 * @param {string} what
 * @returns {(err: unknown) => void}
 */
export function failed(what) {
  return (err) => {
    if (err instanceof AuthError) return;
    notify(err instanceof ApiError && err.routeMissing ? 'info' : 'error', what + ': ' + describe(err));
  };
}
