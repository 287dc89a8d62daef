/**
 * Calls to the admin JSON API. The admin token lives in sessionStorage (this tab only) and travels as
 * `Authorization: Bearer`, never in a URL. Answers are parsed with parseJson, so big integers keep their digits.
 */
import { notify, show } from './dom.js';
import { parseJson } from './json.js';

export const TOKEN_KEY = 'crm-sync.admin-token';

/** The daemon refused the token (or there is none); the page has already gone back to the sign-in prompt. */
export class AuthError extends Error {
  constructor() {
    super('the admin token was refused');
    this.name = 'AuthError';
  }
}

/** Any other failure: an HTTP status (0 when the daemon could not be reached) and the API's message. */
export class ApiError extends Error {
  constructor(status, message, data) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.data = data;
  }
}

let unauthorized = () => {};

/** Sets what happens when there is no token (`refused` false) or the daemon answers 401 to it (`refused` true). */
export function onUnauthorized(handler) {
  unauthorized = handler;
}

function messageOf(data) {
  if (!data || typeof data !== 'object') return '';
  const m = data.message;
  if (Array.isArray(m)) return m.map(show).join('; ');
  return m === undefined || m === null ? '' : show(m);
}

/** Calls the API with the stored token; resolves to the parsed answer, rejects with AuthError or ApiError. */
export function api(method, path, body) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) {
    unauthorized(false);
    return Promise.reject(new AuthError());
  }
  const headers = { Authorization: 'Bearer ' + token, Accept: 'application/json' };
  const init = { method, headers, cache: 'no-store', credentials: 'omit', redirect: 'error' };
  if (body !== undefined) {
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
        if (res.status === 401) {
          // Parallel calls come back 401 together: only the first one (whose token is still the stored one) says so.
          if (sessionStorage.getItem(TOKEN_KEY) === token) unauthorized(true);
          throw new AuthError();
        }
        if (!res.ok) throw new ApiError(res.status, messageOf(data) || 'HTTP ' + res.status, data);
        return data;
      }),
    (err) => {
      throw new ApiError(0, 'cannot reach the daemon (' + (err && err.message ? err.message : 'network error') + ')', null);
    },
  );
}

/** `?a=1&b=2` from the parameters that have a value ('' when none has). */
export function query(params) {
  const parts = [];
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') parts.push(encodeURIComponent(k) + '=' + encodeURIComponent(v));
  }
  return parts.length ? '?' + parts.join('&') : '';
}

/** A rejection handler that shows `what: <reason>` as an error notice (an AuthError has been dealt with already). */
export function failed(what) {
  return (err) => {
    if (err instanceof AuthError) return;
    notify('error', what + ': ' + (err && err.message ? err.message : String(err)));
  };
}
