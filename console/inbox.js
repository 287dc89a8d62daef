// @ts-check
/**
 * The Inbox screen: the stored webhook deliveries (`GET /api/deliveries`) with filters and paging, and one
 * delivery (`#inbox/<id>`, `GET /api/deliveries/:id`): its raw body with exact ids, the actions it produced, and
 * Replay (`POST /api/deliveries/:id/replay`) after a confirmation, showing the new sync log ids.
 */
import { ApiError, AuthError, api, describe, failed } from './api.js';
import { $, clearFields, badge, fillChoices, can, confirmInline, el, emptyRow, fmtTime, inlineMessage, link, projectLink, show, td, timeCell } from './dom.js';
import { parseJson, pretty } from './json.js';
import { PagedList } from './list.js';
import { chainTree } from './project.js';

const COLUMNS = 7;

/** The body as stored, pretty-printed when it is JSON (big integers digit for digit), as is otherwise. */
/**
 * A webhook delivery as `GET /api/deliveries` answers it, or with its body and actions as `GET /api/deliveries/:id`
 * does (api-types.d.ts, from the OpenAPI document).
 * @typedef {import('./api.js').Schemas['DeliveryView'] & Partial<import('./api.js').Schemas['DeliveryDetailView']>} Delivery
 */

/** @param {Delivery} d */
function rawBody(d) {
  const raw = d.body;
  if (raw === undefined || raw === null) return '—';
  if (typeof raw !== 'string') return pretty(raw);
  try {
    return pretty(parseJson(raw));
  } catch {
    return raw;
  }
}

export function initInbox() {
  const message = $('inbox-message');
  const list = new PagedList('/api/deliveries', 'inbox-more', render, (err) => {
    if (err instanceof AuthError) return;
    const missing = err instanceof ApiError && err.routeMissing;
    message.replaceChildren(el('div', 'unavailable ' + (missing ? 'info' : 'error'), 'The inbox is ' + (missing ? '' : 'failing: ') + describe(err)));
  });
  let selected = '';
  /** @type {Delivery | null} */
  let detail = null;
  /** The last replay's answer, kept across the detail's re-rendering. */
  /** @type {{ id: string, ids: string[] } | null} */
  let replayed = null;

  /** @type {Promise<void> | null} */
  let choices = null;
  /** Fills the Endpoint and Status options once, from the daemon (`GET /api/deliveries/filters`). */
  function loadChoices() {
    choices ??= api('GET', '/api/deliveries/filters').then((/** @type {import('./api.js').Schemas['DeliveryFilterChoicesView']} */ answer) => {
      fillChoices($('inbox-endpoint', HTMLSelectElement), answer.endpoints);
      fillChoices($('inbox-status', HTMLSelectElement), answer.statuses);
    }, failed('Loading the endpoints and statuses of the filters failed'));
    return choices;
  }

  function readFilters() {
    const project = $('inbox-project', HTMLInputElement).value.trim();
    if (project && !/^\d+$/.test(project)) {
      inlineMessage($('inbox-apply', HTMLButtonElement), 'error', 'The project id is a string of digits.');
      return null;
    }
    const since = $('inbox-since', HTMLInputElement).value;
    const d = since ? new Date(since) : null;
    return {
      endpoint: $('inbox-endpoint', HTMLSelectElement).value,
      event: $('inbox-event', HTMLInputElement).value.trim(),
      status: $('inbox-status', HTMLSelectElement).value,
      project_id: project,
      since: d && !isNaN(d.getTime()) ? d.toISOString() : '',
    };
  }

  const apply = () => {
    const f = readFilters();
    if (f) list.reset(f);
  };
  $('inbox-filters', HTMLFormElement).addEventListener('submit', (ev) => {
    ev.preventDefault();
    apply();
  });
  for (const id of ['inbox-endpoint', 'inbox-status', 'inbox-since']) $(id).addEventListener('change', apply);
  $('inbox-clear', HTMLButtonElement).addEventListener('click', () => {
    clearFields(['inbox-endpoint', 'inbox-event', 'inbox-status', 'inbox-project', 'inbox-since']);
    apply();
  });
  $('inbox-more', HTMLButtonElement).addEventListener('click', () => list.load(true));

  function render() {
    message.replaceChildren();
    const body = $('inbox-rows');
    body.replaceChildren();
    if (list.items.length === 0) emptyRow(body, 'No deliveries match these filters.', COLUMNS);
    for (const d of list.items) {
      const id = show(d.id);
      const tr = el('tr', 'row' + (id === selected ? ' selected' : ''));
      tr.dataset.id = id;
      tr.dataset.status = show(d.status);
      tr.tabIndex = 0;
      tr.appendChild(td(id, 'mono nowrap'));
      tr.appendChild(timeCell(d.received_at || d.created_at));
      tr.appendChild(td(show(d.endpoint), 'mono nowrap'));
      tr.appendChild(td(show(d.event)));
      const p = td('', 'nowrap project');
      p.appendChild(projectLink(d.project_id, d.project_name));
      tr.appendChild(p);
      const st = el('td');
      st.appendChild(badge(show(d.status), null));
      tr.appendChild(st);
      tr.appendChild(td(d.error ? show(d.error) : '', 'err', d.error ? show(d.error) : ''));
      tr.addEventListener('click', (ev) => {
        if (!(ev.target instanceof HTMLAnchorElement)) window.location.hash = id === selected ? '#inbox' : '#inbox/' + encodeURIComponent(id);
      });
      tr.addEventListener('keydown', (ev) => {
        if (ev.key === 'Enter') window.location.hash = '#inbox/' + encodeURIComponent(id);
      });
      body.appendChild(tr);
      if (id === selected && detail && show(detail.id) === id) body.appendChild(detailRow(detail));
    }
    if (selected && detail && !list.items.some((d) => show(d.id) === selected)) body.insertBefore(detailRow(detail), body.firstChild);
    $('inbox-more', HTMLButtonElement).hidden = !list.next;
    $('inbox-count').textContent = list.items.length + (list.items.length === 1 ? ' delivery' : ' deliveries') + (list.next ? ' shown' : '');
  }

  /** @param {Delivery} d */
  function detailRow(d) {
    const tr = el('tr', 'detail');
    tr.id = 'inbox-detail';
    tr.dataset.id = show(d.id);
    const cell = el('td');
    cell.colSpan = COLUMNS;
    const head = el('div', 'detail-head');
    head.appendChild(el('h2', '', 'Delivery ' + show(d.id)));
    head.appendChild(badge(show(d.status), null));
    head.appendChild(el('span', 'muted', show(d.endpoint) + ' · ' + show(d.event) + ' · received ' + fmtTime(d.received_at)));
    head.appendChild(el('div', 'spacer'));
    if (can('operator')) {
      const replay = el('button', 'danger', 'Replay');
      replay.type = 'button';
      replay.id = 'replay-button';
      replay.addEventListener('click', () => replayDelivery(d, replay));
      head.appendChild(replay);
      if (replayed && replayed.id === show(d.id)) replayNote(replay);
    }
    const close = el('button', '', 'Close');
    close.type = 'button';
    close.addEventListener('click', () => (window.location.hash = '#inbox'));
    head.appendChild(close);
    cell.appendChild(head);
    if (d.error) cell.appendChild(section('Error', el('pre', 'error', show(d.error))));
    const actions = Array.isArray(d.actions) ? d.actions : [];
    cell.appendChild(section('Actions (' + actions.length + ')', actions.length ? chainTree(actions) : el('p', 'muted', 'This delivery produced no action.')));
    cell.appendChild(bodySection(d));
    tr.appendChild(cell);
    return tr;
  }

  /** The body formatted (ids digit for digit), or exactly as received, at the press of a button. */
  /** @param {Delivery} d */
  function bodySection(d) {
    const formatted = rawBody(d);
    const exact = typeof d.body === 'string' ? d.body : formatted;
    const pre = el('pre', 'raw-body', formatted);
    pre.id = 'inbox-raw';
    const box = section('Body', pre);
    if (exact !== formatted) {
      const toggle = el('button', 'small link', 'Show as received');
      toggle.type = 'button';
      toggle.addEventListener('click', () => {
        const asReceived = pre.textContent === formatted;
        pre.textContent = asReceived ? exact : formatted;
        toggle.textContent = asReceived ? 'Show formatted' : 'Show as received';
      });
      box.firstElementChild?.appendChild(toggle);
    }
    return box;
  }

  /**
   * @param {string} title
   * @param {Node} content
   */
  function section(title, content) {
    const box = el('div', 'detail-section');
    box.appendChild(el('h3', '', title));
    box.appendChild(content);
    return box;
  }

  /**
   * @param {Delivery} d
   * @param {HTMLButtonElement} button
   */
  function replayDelivery(d, button) {
    const id = show(d.id);
    const question = 'Route delivery ' + id + ' again now? Its pushes run again; approvals and payments already recorded stay as they are.';
    confirmInline((button.parentElement && button.parentElement.lastElementChild) || button, question, 'Replay').then((yes) => {
      if (!yes) return;
      button.disabled = true;
      api('POST', '/api/deliveries/' + encodeURIComponent(id) + '/replay').then(
        (res) => {
          replayed = { id, ids: res && Array.isArray(res.sync_log_ids) ? res.sync_log_ids.map(show) : [] };
          replayNote(button);
          // The new actions show in the detail once read again.
          setTimeout(() => selected === id && openDetail(id), 800);
        },
        (err) => {
          button.disabled = false;
          if (!(err instanceof AuthError)) inlineMessage(button, 'error', 'Replay failed: ' + describe(err));
        },
      );
    });
  }

  /** "Replayed: sync log 5, 6" next to the Replay button, the ids linking to their entries. */
  /** @param {HTMLButtonElement} button */
  function replayNote(button) {
    const ids = replayed ? replayed.ids : [];
    const box = inlineMessage(button, 'ok', ids.length ? 'Replayed: sync log ' : 'Replayed: no new action.');
    box.id = 'replay-result';
    ids.forEach((/** @type {string} */ x, /** @type {number} */ i) => {
      if (i) box.appendChild(document.createTextNode(', '));
      box.appendChild(link(x, '#logs/' + encodeURIComponent(x), 'mono'));
    });
  }

  /** @param {string} id */
  function openDetail(id) {
    selected = id;
    if (!id) {
      detail = null;
      return;
    }
    if (detail && show(detail.id) !== id) detail = null;
    api('GET', '/api/deliveries/' + encodeURIComponent(id)).then(
      (d) => {
        if (selected !== id) return;
        detail = d;
        render();
      },
      (err) => {
        if (err instanceof AuthError) return;
        message.replaceChildren(el('div', 'unavailable ' + (err.status === 404 ? 'info' : 'error'), 'Delivery ' + id + ': ' + describe(err)));
      },
    );
  }

  /**
   * @param {string} id a delivery to open (`#inbox/123`), or ''
   * @param {boolean} [refresh]
   */
  function showScreen(id, refresh) {
    void loadChoices();
    if (!refresh || id) openDetail(id || '');
    return list.load(false);
  }

  return { show: showScreen };
}
