// @ts-check
/**
 * A sync log entry's details (its fields, the calls it made as a table, error, payload, Retry) and the sync log's
 * "Retry all matching", which first counts the failed entries the filters match and asks to confirm.
 */
import { ApiError, AuthError, api, describe, query } from './api.js';
import { badge, can, confirmInline, el, fmtDuration, fmtTime, inlineMessage, link, projectLink, show, table, targetOf, td } from './dom.js';
import { pretty } from './json.js';

/** @typedef {import('./api.js').Schemas} Schemas */

/**
 * The statuses with a colour (`.s-*` in screens.css): a record of every SyncStatus of the API, so that a new status
 * fails the typecheck until it has its colour.
 * @type {Record<Schemas['SyncStatus'], true>}
 */
const COLOURED = { queued: true, running: true, succeeded: true, failed: true, skipped: true, waiting: true };
export const LOG_STATUSES = Object.keys(COLOURED);

/** A sync log entry as the API answers it: from the list, or `GET /api/sync-logs/:id` with its calls. @typedef {Schemas['SyncLogEntryView'] & { calls?: Schemas['SyncLogCallView'][] }} LogEntry */
/** The filters of "Retry all matching". @typedef {Record<string, string | number | null | undefined>} Filters */

/**
 * @param {HTMLElement} grid
 * @param {string} label
 * @param {string | Node} value
 * @param {boolean} [mono]
 */
function field(grid, label, value, mono) {
  const wrap = el('div');
  wrap.appendChild(el('dt', '', label));
  const dd = el('dd', mono ? 'mono' : '');
  if (value instanceof Node) dd.appendChild(value);
  else dd.textContent = value;
  wrap.appendChild(dd);
  grid.appendChild(wrap);
}

/** Local time, with the API's ISO 8601 UTC value under it. */
/** @param {string | null | undefined} iso */
function timeWithIso(iso) {
  if (!iso) return '—';
  const box = el('span', '', fmtTime(iso));
  box.appendChild(el('span', 'sub mono', String(iso)));
  return box;
}

/**
 * @param {HTMLElement} parent
 * @param {string} title
 * @param {string | Node} content
 * @param {string} [className]
 */
function section(parent, title, content, className) {
  const box = el('div', 'detail-section');
  box.appendChild(el('h3', '', title));
  box.appendChild(content instanceof Node ? content : el('pre', className || '', content));
  parent.appendChild(box);
  return box;
}

/** The outbound calls, in order, one row each, grouped by run: "succeeded after two 503s" reads off the table. */
/** @param {Schemas['SyncLogCallView'][] | undefined} calls the entry's `calls` (absent from a list's entry) */
export function callTrace(calls) {
  if (!Array.isArray(calls)) return el('p', 'muted', 'No call trace on this daemon (the entry has no "calls").');
  if (calls.length === 0) return el('p', 'muted', 'This action made no outbound call.');
  const { table: t, body } = table(['#Run', '#Call', 'System', 'Method', 'Path', 'Status', '#Duration', 'Error'], 'trace');
  t.id = 'call-trace';
  calls.forEach((c, i) => {
    const ok = typeof c.status === 'number' && c.status >= 200 && c.status < 400;
    const tr = el('tr', ok ? 'call-ok' : 'call-failed');
    tr.appendChild(td(show(c.run), 'num'));
    tr.appendChild(td(c.seq !== undefined ? show(c.seq) : String(i + 1), 'num muted'));
    tr.appendChild(td(show(c.system), 'nowrap'));
    tr.appendChild(td(show(c.method), 'mono'));
    tr.appendChild(td(show(c.path), 'mono'));
    const st = el('td', 'nowrap');
    st.appendChild(el('span', 'badge ' + (ok ? 's-succeeded' : 's-failed'), c.status === null || c.status === undefined ? 'no answer' : show(c.status)));
    tr.appendChild(st);
    tr.appendChild(td(fmtDuration(c.duration_ms), 'num'));
    tr.appendChild(td(c.error ? show(c.error) : '', 'err wrap'));
    body.appendChild(tr);
  });
  const wrap = el('div', 'card trace-card');
  wrap.appendChild(t);
  return wrap;
}

/** The detail row of an entry; `close()` closes it, `retried()` reloads the list after a retry. */
/**
 * @param {LogEntry} e
 * @param {number} columns
 * @param {{ close: () => void, retried: () => void }} hooks
 */
export function entryDetail(e, columns, { close, retried }) {
  const tr = el('tr', 'detail');
  tr.id = 'log-detail';
  tr.dataset.id = e.id;
  const cell = el('td');
  cell.colSpan = columns;
  const head = el('div', 'detail-head');
  head.appendChild(el('h2', '', 'Sync log entry ' + e.id));
  head.appendChild(badge(e.status, LOG_STATUSES));
  head.appendChild(el('div', 'spacer'));
  if (e.status === 'failed' && can('operator')) {
    const retry = el('button', 'danger', 'Retry');
    retry.type = 'button';
    retry.id = 'retry-button';
    retry.addEventListener('click', (ev) => {
      ev.stopPropagation();
      retryEntry(e.id, retry, retried);
    });
    head.appendChild(retry);
  }
  const closer = el('button', '', 'Close');
  closer.type = 'button';
  closer.addEventListener('click', close);
  head.appendChild(closer);
  cell.appendChild(head);

  const grid = el('dl', 'detail-grid');
  field(grid, 'Kind', show(e.kind));
  field(grid, 'Trigger', show(e.trigger) + (e.actor ? ' (' + show(e.actor) + ')' : ''));
  field(grid, 'CRM', show(e.crm));
  field(grid, 'Target', e.target ? targetOf(e.target_name, e.target, e.target_web_url, e.crm) : '—', !e.target);
  field(grid, 'Project', projectLink(e.project_id, e.project_name), true);
  field(grid, 'Attempts', show(e.attempts));
  field(grid, 'Created', timeWithIso(e.created_at));
  field(grid, 'Finished', timeWithIso(e.finished_at));
  field(grid, 'Duration', fmtDuration(e.duration_ms));
  field(grid, 'Parent entry', show(e.parent_id), true);
  field(grid, 'Delivery', e.inbox_id ? link(show(e.inbox_id), '#inbox/' + encodeURIComponent(show(e.inbox_id)), 'mono') : '—', true);
  cell.appendChild(grid);

  if (e.detail) section(cell, 'Detail', show(e.detail));
  if (e.error) section(cell, e.status === 'failed' ? 'Error' : 'Last error', show(e.error), 'error');
  section(cell, 'Calls', callTrace(e.calls));
  section(cell, 'Payload', pretty(e.payload === undefined ? {} : e.payload));
  tr.appendChild(cell);
  return tr;
}

/**
 * @param {string} id
 * @param {HTMLButtonElement} button
 * @param {() => void} retried
 */
function retryEntry(id, button, retried) {
  button.disabled = true;
  api('POST', '/api/sync-logs/' + encodeURIComponent(id) + '/retry').then(
    (entry) => {
      inlineMessage(button, 'ok', 'Queued to run again' + (entry && entry.status ? ' (now ' + show(entry.status) + ').' : '.'));
      setTimeout(retried, 1200);
    },
    (err) => {
      button.disabled = false;
      if (!(err instanceof AuthError)) inlineMessage(button, err.status === 409 ? 'info' : 'error', 'Not retried: ' + describe(err));
    },
  );
}

/** `{matching, would_retry, cap}` (or `{count}`) as the number of entries one retry would take. */
/**
 * @param {any} res
 * @returns {number | null}
 */
const countOf = (res) => {
  if (res && typeof res.would_retry === 'number') return res.would_retry;
  for (const key of ['count', 'matching', 'total', 'retried']) if (res && typeof res[key] === 'number') return res[key];
  return null;
};

/** How many failed entries the filters match: `GET /api/sync-logs/count`, else a dry run of the retry. */
/** @param {Filters} filters */
function countFailed(filters) {
  const q = query(Object.assign({}, filters, { status: 'failed' }));
  return api('GET', '/api/sync-logs/count' + q).then(countOf, (err) => {
    if (!(err instanceof ApiError) || !err.routeMissing) throw err;
    return api('POST', '/api/sync-logs/retry' + query(Object.assign({}, filters, { status: 'failed', dry_run: 'true' }))).then(countOf);
  });
}

/** "Retry all matching": count, confirm in place, then retry and say how many (and which) went again. */
/**
 * @param {HTMLButtonElement} button
 * @param {Filters} filters
 * @param {() => void} after
 */
export function retryAll(button, filters, after) {
  const asked = Object.assign({}, filters);
  if (asked.status && asked.status !== 'failed') {
    inlineMessage(button, 'info', 'Only failed entries can be retried: set Status to "failed" or "any".');
    return;
  }
  delete asked.status;
  button.disabled = true;
  countFailed(asked)
    .then((n) => {
      if (n === 0) {
        inlineMessage(button, 'info', 'No failed entry matches these filters.');
        return null;
      }
      const what = n === null ? 'every failed entry matching these filters' : n + (n === 1 ? ' failed entry matches' : ' failed entries match');
      return confirmInline(
        button,
        n === null ? 'Retry ' + what + '?' : what + ' these filters. Retry ' + (n === 1 ? 'it' : 'all ' + n) + '?',
        'Retry ' + (n === null ? 'all' : n),
      ).then((yes) =>
        yes
          ? api('POST', '/api/sync-logs/retry' + query(Object.assign({}, asked, { status: 'failed' }))).then((res) => {
              const ids = res && Array.isArray(res.ids) ? res.ids.map(show) : [];
              const count = res && typeof res.retried === 'number' ? res.retried : ids.length;
              const shown = ids.slice(0, 20).join(', ') + (ids.length > 20 ? ', …' : '');
              const more = res && res.more ? ' More match: press the button again for the next ones.' : '';
              inlineMessage(
                button,
                'ok',
                count + (count === 1 ? ' entry' : ' entries') + ' queued to run again' + (ids.length ? ': ' + shown + '.' : '.') + more,
              );
              return after();
            })
          : null,
      );
    })
    .catch((err) => {
      if (!(err instanceof AuthError)) inlineMessage(button, err.routeMissing ? 'info' : 'error', 'Retry all: ' + describe(err));
    })
    .then(() => {
      button.disabled = false;
    });
}
