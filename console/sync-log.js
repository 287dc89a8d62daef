// @ts-check
/**
 * The sync log screen: filters, paging, an entry's details (log-detail.js), "Retry all matching", and the header's
 * counters.
 */
import { api, failed, query } from './api.js';
import { $, chooseValue, clearFields, badge, el, emptyRow, fillChoices, fmtDuration, notify, projectLink, show, targetOf, td, timeCell } from './dom.js';
import { PagedList } from './list.js';
import { entryDetail, LOG_STATUSES, retryAll } from './log-detail.js';

/** @typedef {import('./api.js').Schemas} Schemas */
/** @typedef {import('./log-detail.js').LogEntry} LogEntry */

const COUNT_LIMIT = 100;
const COLUMNS = 10;

/**
 * Wires the tab up. `showTab` brings the sync log tab to the front (a counter's click filters the log).
 * Returns `load(more)` and `loadCounters()` for the page's refresh.
 */
/** @param {{ showTab: () => void }} hooks */
export function initSyncLog({ showTab }) {
  const list = new PagedList('/api/sync-logs', 'log-more', render, 'Loading the sync log failed');
  /** The opened entry's id, and its fresh copy once fetched (shown even when the filters hide its row). */
  /** @type {string | null} */
  let selected = null;
  /** @type {LogEntry | null} */
  let fetched = null;

  /** @param {boolean} [more] */
  const load = (more) => {
    void loadChoices();
    return list.load(more);
  };

  // ---- the filters' values, from the daemon (`GET /api/sync-logs/filters`: ACTION_KINDS and the statuses) ----

  /** @type {Promise<void> | null} */
  let choices = null;
  /** Fills the Kind suggestions and the Status options once, at the first load (signed in by then). */
  function loadChoices() {
    choices ??= api('GET', '/api/sync-logs/filters').then((/** @type {Schemas['SyncLogFilterChoicesView']} */ answer) => {
      const kinds = $('kinds');
      kinds.replaceChildren(
        ...answer.kinds.map((kind) => {
          const option = el('option');
          option.value = kind;
          return option;
        }),
      );
      fillChoices($('log-status', HTMLSelectElement), answer.statuses);
    }, failed('Loading the kinds and statuses of the filters failed'));
    return choices;
  }

  /** @param {string} status */
  function chooseStatus(status) {
    chooseValue($('log-status', HTMLSelectElement), status);
  }

  // ---- counters ----

  function loadCounters() {
    for (const [status, label] of [
      ['failed', 'Failed'],
      ['queued', 'Queued'],
    ]) {
      api('GET', '/api/sync-logs' + query({ status, limit: COUNT_LIMIT })).then(
        (/** @type {import('./api.js').Page<LogEntry>} */ page) => {
          const n = page.items.length;
          const node = $('count-' + status);
          node.textContent = label + ': ' + n + (page.next_cursor ? '+' : '');
          node.classList.toggle('zero', n === 0);
        },
        failed('Counting ' + status + ' entries failed'),
      );
    }
  }

  /** @param {string} status */
  function filterByStatus(status) {
    chooseStatus(status);
    showTab();
    applyFilters();
  }
  $('count-failed', HTMLButtonElement).addEventListener('click', () => filterByStatus('failed'));
  $('count-queued', HTMLButtonElement).addEventListener('click', () => filterByStatus('queued'));

  // ---- filters ----

  function readFilters() {
    const project = $('log-project', HTMLInputElement).value.trim();
    if (project && !/^\d+$/.test(project)) {
      notify('error', 'The project id is a string of digits.');
      return null;
    }
    const since = $('log-since', HTMLInputElement).value;
    let sinceIso = '';
    if (since) {
      const d = new Date(since);
      if (isNaN(d.getTime())) {
        notify('error', 'The "since" time is not a valid date.');
        return null;
      }
      sinceIso = d.toISOString();
    }
    return {
      status: $('log-status', HTMLSelectElement).value,
      crm: $('log-crm', HTMLSelectElement).value,
      kind: $('log-kind', HTMLInputElement).value.trim(),
      project_id: project,
      since: sinceIso,
    };
  }

  function applyFilters() {
    const filters = readFilters();
    if (filters) list.reset(filters);
  }

  $('log-filters', HTMLFormElement).addEventListener('submit', (ev) => {
    ev.preventDefault();
    applyFilters();
  });
  $('log-status', HTMLSelectElement).addEventListener('change', applyFilters);
  $('log-crm', HTMLSelectElement).addEventListener('change', applyFilters);
  $('log-since', HTMLInputElement).addEventListener('change', applyFilters);
  $('log-clear', HTMLButtonElement).addEventListener('click', () => {
    clearFields(['log-status', 'log-crm', 'log-kind', 'log-project', 'log-since']);
    applyFilters();
  });
  $('log-more', HTMLButtonElement).addEventListener('click', () => load(true));

  // ---- the table ----

  function render() {
    const body = $('log-rows');
    body.replaceChildren();
    if (list.items.length === 0) emptyRow(body, 'No sync log entries match these filters.', COLUMNS);
    let selectedShown = false;
    for (const e of /** @type {LogEntry[]} */ (list.items)) {
      const tr = el('tr', 'row' + (e.id === selected ? ' selected' : ''));
      tr.tabIndex = 0;
      tr.dataset.id = e.id;
      tr.dataset.status = e.status;
      tr.setAttribute('aria-expanded', String(e.id === selected));
      tr.appendChild(td(e.id, 'mono nowrap'));
      tr.appendChild(timeCell(e.created_at));
      tr.appendChild(td(show(e.kind), 'nowrap'));
      tr.appendChild(td(show(e.trigger)));
      const crm = td(show(e.crm));
      if (e.target) {
        const target = el('span', 'sub');
        target.appendChild(targetOf(e.target_name, e.target, e.target_web_url, e.crm));
        crm.appendChild(target);
      }
      tr.appendChild(crm);
      const project = td('', 'nowrap project');
      project.appendChild(projectLink(e.project_id, e.project_name));
      tr.appendChild(project);
      const st = el('td');
      st.appendChild(badge(e.status, LOG_STATUSES));
      tr.appendChild(st);
      tr.appendChild(td(show(e.attempts), 'num'));
      tr.appendChild(td(fmtDuration(e.duration_ms), 'num'));
      tr.appendChild(td(e.error ? show(e.error) : '', 'err', e.error ? show(e.error) : ''));
      tr.addEventListener('click', () => toggle(e.id));
      tr.addEventListener('keydown', (ev) => {
        if (ev.key === 'Enter' || ev.key === ' ') {
          ev.preventDefault();
          toggle(e.id);
        }
      });
      body.appendChild(tr);
      if (e.id === selected) {
        selectedShown = true;
        // It changed since it was read (run again): read it again, for its new calls.
        if (fetched && fetched.id === e.id && (fetched.status !== e.status || fetched.attempts !== e.attempts)) {
          fetched = null;
          fetchSelected(e.id);
        }
        // The list's row (fresher) over the fetched copy (which has the calls): a later list load replaces the row.
        body.appendChild(detailRow(fetched && fetched.id === e.id ? Object.assign({}, fetched, e) : e));
      }
    }
    if (selected && !selectedShown && fetched && fetched.id === selected) body.insertBefore(detailRow(fetched), body.firstChild);
    $('log-more', HTMLButtonElement).hidden = !list.next;
    $('log-count').textContent = list.items.length + (list.items.length === 1 ? ' entry' : ' entries') + (list.next ? ' shown' : '');
  }

  /** Opens an entry (and fetches it afresh) or closes it. */
  /** @param {string} id */
  function toggle(id) {
    if (selected === id) {
      selected = null;
      fetched = null;
      render();
      return;
    }
    selected = id;
    fetched = null;
    render();
    fetchSelected(id);
  }

  /** Reads the open entry afresh (with its calls). */
  /** @param {string} id */
  function fetchSelected(id) {
    api('GET', '/api/sync-logs/' + encodeURIComponent(id)).then(
      (/** @type {Schemas['SyncLogEntryDetailView']} */ entry) => {
        if (selected !== id) return;
        fetched = entry;
        const i = list.items.findIndex((x) => x.id === id);
        if (i >= 0) list.items[i] = entry;
        render();
      },
      failed('Loading entry ' + id + ' failed'),
    );
  }

  /** @param {LogEntry} e */
  function detailRow(e) {
    return entryDetail(e, COLUMNS, {
      close: () => toggle(e.id),
      retried: () => {
        fetched = null;
        loadCounters();
        return load(false);
      },
    });
  }

  // ---- retry all matching ----

  $('retry-all-button', HTMLButtonElement).addEventListener('click', () => {
    const filters = readFilters();
    if (filters)
      retryAll($('retry-all-button', HTMLButtonElement), filters, () => {
        loadCounters();
        return load(false);
      });
  });

  /**
   * The filters a link names (`#logs/?crm=record&kind=update_deal&status=succeeded&since=…`: the funnel's numbers); the
   * others are cleared.
   * @param {URLSearchParams} params
   */
  function setFilters(params) {
    chooseStatus(params.get('status') || '');
    $('log-crm', HTMLSelectElement).value = params.get('crm') || '';
    $('log-kind', HTMLInputElement).value = params.get('kind') || '';
    $('log-project', HTMLInputElement).value = params.get('project_id') || '';
    const since = new Date(params.get('since') || NaN);
    $('log-since', HTMLInputElement).value = isNaN(since.getTime()) ? '' : localInputTime(since);
    const filters = readFilters();
    if (filters) list.query = filters;
  }

  /** `#logs/<id>` opens that entry; `#logs` (not a refresh) closes the open one. */
  /**
   * @param {string} id an entry to open (`#logs/123`), or ''
   * @param {boolean} [refresh]
   */
  function showScreen(id, refresh) {
    if (id.startsWith('?')) {
      setFilters(new URLSearchParams(id.slice(1)));
      id = '';
    }
    if (id && id !== selected) toggle(id);
    else if (!id && !refresh && selected) {
      selected = null;
      fetched = null;
    }
    return load(false);
  }

  return { show: showScreen, load, loadCounters };
}

/**
 * A time as a `datetime-local` input's value, to the second, in local time.
 * @param {Date} d
 */
function localInputTime(d) {
  /** @param {number} n */
  const pad = (n) => String(n).padStart(2, '0');
  return (
    d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + 'T' + pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds())
  );
}
