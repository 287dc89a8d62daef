// @ts-check
/**
 * DOM helpers and formatting. Every value from the API reaches the page through textContent (or an attribute such
 * as title), never as markup.
 */
import { BigNum } from './json.js';

/**
 * The page's element of this id, checked to be a `type` when given; throws when the markup and the scripts disagree.
 * @template {HTMLElement} [T=HTMLElement]
 * @param {string} id
 * @param {{ new (): T, name: string }} [type]
 * @returns {T}
 */
export function $(id, type) {
  const node = document.getElementById(id);
  if (!node) throw new Error('the page has no #' + id);
  if (type && !(node instanceof type)) throw new Error('#' + id + ' is not a ' + type.name);
  return /** @type {T} */ (node);
}

/**
 * Empties these inputs and selects (a filter form's Clear).
 * @param {string[]} ids
 */
export function clearFields(ids) {
  for (const id of ids) {
    const field = $(id);
    if (field instanceof HTMLInputElement || field instanceof HTMLSelectElement) field.value = '';
  }
}

/**
 * Gives a filter's select "any" and then the daemon's values, keeping the value chosen so far (added when the daemon's
 * list lacks it, e.g. a link's filter that arrived before the list).
 * @param {HTMLSelectElement} select
 * @param {readonly string[]} values
 */
export function fillChoices(select, values) {
  const current = select.value;
  const any = el('option', '', 'any');
  any.value = '';
  select.replaceChildren(any, ...values.map(choiceOption));
  chooseValue(select, current);
}

/**
 * Sets a filter's select, adding the value when the daemon's list has not come yet.
 * @param {HTMLSelectElement} select
 * @param {string} value
 */
export function chooseValue(select, value) {
  if (value && !Array.from(select.options).some((o) => o.value === value)) select.appendChild(choiceOption(value));
  select.value = value;
}

/** @param {string} value */
function choiceOption(value) {
  const option = el('option', '', value);
  option.value = value;
  return option;
}

/**
 * Builds an element; text always goes in through textContent.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string | null} [className]
 * @param {string | null} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

/**
 * A value as text: a dash for nothing, big integers digit for digit.
 * @param {unknown} v
 */
export function show(v) {
  if (v === null || v === undefined || v === '') return '—';
  if (v instanceof BigNum) return v.raw;
  return String(v);
}

/** @param {number} n */
const pad = (n) => (n < 10 ? '0' + n : String(n));

/**
 * An ISO time as local `YYYY-MM-DD hh:mm:ss`.
 * @param {string | null | undefined} iso
 */
export function fmtTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (isNaN(d.getTime())) return String(iso);
  return (
    d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + ' ' + pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds())
  );
}

/** @param {number | string | null | undefined} ms */
export function fmtDuration(ms) {
  if (ms === null || ms === undefined || ms === '') return '—';
  const n = Number(ms);
  if (!isFinite(n)) return String(ms);
  if (n < 1000) return Math.round(n) + ' ms';
  if (n < 60000) return (n / 1000).toFixed(n < 10000 ? 2 : 1) + ' s';
  const s = Math.round(n / 1000);
  return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
}

/**
 * A status badge; `known` lists the statuses that have a colour (null: any status).
 * @param {string} status
 * @param {string[] | null} [known]
 */
export function badge(status, known) {
  const cls = !known || known.indexOf(status) >= 0 ? 's-' + status : 's-unknown';
  return el('span', 'badge ' + cls, show(status));
}

/**
 * @param {string | null} [text]
 * @param {string | null} [className]
 * @param {string | null} [title]
 */
export function td(text, className, title) {
  const cell = el('td', className, text);
  if (title) cell.title = title;
  return cell;
}

/** Local time, with the API's ISO value as the tooltip. */
/** @param {string | null | undefined} iso */
export const timeCell = (iso) => td(fmtTime(iso), 'nowrap', iso || '');

/**
 * A table body's single row saying that nothing matched.
 * @param {HTMLElement} body
 * @param {string} text
 * @param {number} columns
 */
export function emptyRow(body, text, columns) {
  const row = el('tr');
  const cell = td(text, 'empty');
  cell.colSpan = columns;
  row.appendChild(cell);
  body.appendChild(row);
}

// ---- notices ----

/** @type {ReturnType<typeof setTimeout> | undefined} */
let noticeTimer;

/** @typedef {'ok' | 'info' | 'error'} Kind */

/**
 * Shows a notice. Errors stay until dismissed, others go after 8 s.
 * @param {Kind} kind
 * @param {string} text
 */
export function notify(kind, text) {
  const box = $('notice');
  box.className = 'notice ' + kind;
  $('notice-text').textContent = text;
  box.hidden = false;
  clearTimeout(noticeTimer);
  if (kind !== 'error') noticeTimer = setTimeout(() => (box.hidden = true), 8000);
}

export function clearNotice() {
  $('notice').hidden = true;
  clearTimeout(noticeTimer);
}

// ---- the signed-in role ----

const ROLE_ORDER = ['viewer', 'operator', 'admin'];
let currentRole = 'viewer';

/** @param {string} role */
export function setRole(role) {
  currentRole = ROLE_ORDER.indexOf(role) >= 0 ? role : 'viewer';
  // Markup marked data-role="operator" (or admin) shows only to a role that may use it.
  for (const node of document.querySelectorAll('[data-role]')) {
    if (node instanceof HTMLElement) node.hidden = !can(node.dataset.role || 'admin');
  }
}

/**
 * Whether the signed-in role includes `required` (viewer < operator < admin).
 * @param {string} required
 */
export function can(required) {
  return ROLE_ORDER.indexOf(currentRole) >= ROLE_ORDER.indexOf(required);
}

// ---- messages and confirmations where the user clicked ----

/**
 * A message box right after `anchor` (replacing the previous one there).
 * @param {Element} anchor
 * @param {Kind} kind
 * @param {string} text
 */
export function inlineMessage(anchor, kind, text) {
  const next = anchor.nextElementSibling;
  if (next && next.classList.contains('inline-msg')) next.remove();
  const box = el('span', 'inline-msg ' + kind, text);
  box.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  anchor.after(box);
  return box;
}

/**
 * Asks in place, next to `anchor`: resolves true on Confirm, false on Cancel.
 * @param {Element} anchor
 * @param {string} text
 * @param {string} [okLabel]
 * @returns {Promise<boolean>}
 */
export function confirmInline(anchor, text, okLabel) {
  const old = anchor.parentNode && anchor.parentNode.querySelector(':scope > .confirm');
  if (old) old.remove();
  return new Promise((resolve) => {
    const box = el('div', 'confirm');
    box.setAttribute('role', 'alertdialog');
    box.appendChild(el('span', '', text));
    const ok = el('button', 'danger', okLabel || 'Confirm');
    ok.type = 'button';
    ok.dataset.confirm = 'ok';
    const cancel = el('button', '', 'Cancel');
    cancel.type = 'button';
    cancel.dataset.confirm = 'cancel';
    /** @param {boolean} answer @returns {(ev: Event) => void} */
    const done = (answer) => (ev) => {
      ev.stopPropagation();
      box.remove();
      resolve(answer);
    };
    ok.addEventListener('click', done(true));
    cancel.addEventListener('click', done(false));
    box.appendChild(ok);
    box.appendChild(cancel);
    anchor.after(box);
    ok.focus();
  });
}

/**
 * A link inside the console (a hash route such as `#project/123`).
 * @param {string} text
 * @param {string} hash
 * @param {string} [className]
 */
export function link(text, hash, className) {
  const a = el('a', className || '', text);
  a.href = hash;
  return a;
}

/**
 * A name with its id beside it (muted, monospace): how the console shows projects and CRM records. A name not known
 * yet says so, so an id never stands alone.
 * @param {unknown} name
 * @param {unknown} id
 * @param {string} [href] makes the name a link
 */
export function namedId(name, id, href) {
  const box = el('span', 'named-id');
  const label = name === null || name === undefined || name === '' ? el('span', 'name-unknown', 'name not known yet') : el('span', 'name', show(name));
  if (href) {
    const a = link('', href, 'name-link');
    a.appendChild(label);
    box.appendChild(a);
  } else box.appendChild(label);
  box.appendChild(el('span', 'mono id', show(id)));
  return box;
}

/**
 * A link that opens a CRM record in its CRM, in a new tab (`web_url` of the API's answers); nothing when the address
 * is not http(s) or not known.
 * @param {unknown} url
 * @param {string | null} [crm] `appointment` or `record`, for its words
 * @returns {HTMLAnchorElement | null}
 */
export function webLink(url, crm) {
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) return null;
  const a = el('a', 'web-link', crm === 'record' ? 'open in Zoho ↗' : crm === 'appointment' ? 'open in the CRM ↗' : 'open ↗');
  a.href = url;
  a.target = '_blank';
  a.rel = 'noopener noreferrer';
  a.title = url;
  return a;
}

/**
 * `node`, followed by the link to its record in its CRM when there is one.
 * @param {Node} node
 * @param {unknown} url
 * @param {string | null} [crm]
 */
export function withWebLink(node, url, crm) {
  const a = webLink(url, crm);
  if (!a) return node;
  const box = el('span', 'with-web-link');
  box.appendChild(node);
  box.appendChild(a);
  return box;
}

/**
 * A sync log entry's CRM target: its record's name with the id when the mapping knows it, else the id; then the link
 * that opens it in its CRM when known.
 * @param {unknown} name
 * @param {unknown} id
 * @param {unknown} [url]
 * @param {string | null} [crm]
 */
export function targetOf(name, id, url, crm) {
  return withWebLink(name ? namedId(name, id) : el('span', 'mono', show(id)), url, crm);
}

/**
 * A project: its name linking to its project view, its id beside it.
 * @param {unknown} id
 * @param {unknown} [name]
 */
export function projectLink(id, name) {
  if (id === null || id === undefined || id === '') return document.createTextNode('—');
  return namedId(name, id, '#project/' + encodeURIComponent(show(id)));
}

/**
 * A mapping's CRM record: its name and its id (`Module / id` for a Zoho record).
 * @param {Record<string, any>} m the mapping
 */
export function crmRecordOf(m) {
  const id = m.crm === 'record' ? show(m.record_crm_module) + ' / ' + show(m.record_crm_record_id) : show(m.appointment_id);
  return withWebLink(namedId(m.crm_record_name, id), m.web_url, m.crm);
}

/**
 * A table with a header row; returns `{ table, body }`.
 * @param {string[]} headers a leading `#` marks a numeric column
 * @param {string} [className]
 */
export function table(headers, className) {
  const t = el('table', className || '');
  const head = el('thead');
  const row = el('tr');
  for (const h of headers) row.appendChild(el('th', h.startsWith('#') ? 'num' : '', h.replace(/^#/, '')));
  head.appendChild(row);
  t.appendChild(head);
  const body = el('tbody');
  t.appendChild(body);
  return { table: t, body };
}
