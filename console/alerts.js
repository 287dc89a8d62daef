// @ts-check
/**
 * The Alerts screen (`GET /api/alerts`, and "Send a test alert" for admins: `POST /api/alerts/test`) and the
 * Settings screen (`GET /api/settings`: retention and alert settings, read-only: they come from the environment).
 */
import { ApiError, AuthError, api, describe } from './api.js';
import { $, badge, el, inlineMessage, link, show, table, td, timeCell } from './dom.js';

/**
 * An alert as `GET /api/alerts` answers it (api-types.d.ts, from the OpenAPI document).
 * @typedef {import('./api.js').Schemas['AlertView']} Alert
 */
/**
 * `GET /api/settings`.
 * @typedef {{ retention?: { sync_log_days?: number, inbox_days?: number }, public_url?: string,
 *   alerts?: { webhook_configured?: boolean, webhook_host?: string, min_interval_seconds?: number, public_url?: string } }} Settings
 */

/**
 * @param {HTMLElement} box
 * @param {string} what
 * @param {unknown} err
 */
function unavailable(box, what, err) {
  if (err instanceof AuthError) return;
  const missing = err instanceof ApiError && err.routeMissing;
  box.replaceChildren(el('div', 'unavailable ' + (missing ? 'info' : 'error'), what + ' ' + (missing ? 'are ' : 'failed: ') + describe(err)));
}

export function initAlerts() {
  const body = $('alerts-body');
  let gen = 0;

  /** @param {{ items?: Alert[] } | null} page */
  function render(page) {
    const items = page && Array.isArray(page.items) ? page.items : [];
    body.replaceChildren();
    if (items.length === 0) {
      body.appendChild(
        el('p', 'muted empty-note', 'No alert yet. One is sent when an action fails for good, the record CRM refuses its token, or webhooks are refused.'),
      );
      return;
    }
    const { table: t, body: rows } = table(['ID', 'Created', 'Kind', 'Status', '#Count', 'Message', 'Entries', 'Sent']);
    t.id = 'alerts-table';
    for (const a of items) {
      const tr = el('tr');
      tr.dataset.id = show(a.id);
      tr.appendChild(td(show(a.id), 'mono'));
      tr.appendChild(timeCell(a.created_at));
      tr.appendChild(td(show(a.kind), 'nowrap'));
      const st = el('td');
      st.appendChild(badge(show(a.status), null));
      tr.appendChild(st);
      tr.appendChild(td(show(a.count), 'num'));
      const text = td(show(a.text), 'wrap');
      if (a.error) text.appendChild(el('span', 'sub err', show(a.error) + (a.http_status ? ' (HTTP ' + show(a.http_status) + ')' : '')));
      tr.appendChild(text);
      const entries = el('td', 'mono');
      const ids = Array.isArray(a.entries) ? a.entries.map((x) => show(x)) : [];
      ids.slice(0, 5).forEach((x, i) => {
        if (i) entries.appendChild(document.createTextNode(', '));
        entries.appendChild(link(x, '#logs/' + encodeURIComponent(x)));
      });
      if (ids.length > 5) entries.appendChild(document.createTextNode(' +' + (ids.length - 5)));
      tr.appendChild(entries);
      tr.appendChild(timeCell(a.sent_at));
      rows.appendChild(tr);
    }
    const card = el('div', 'card');
    card.appendChild(t);
    body.appendChild(card);
  }

  /**
   * @param {string} _arg
   * @param {boolean} [refresh]
   */
  function showScreen(_arg, refresh) {
    const mine = ++gen;
    if (!refresh) body.replaceChildren(el('p', 'muted loading', 'Loading…'));
    return api('GET', '/api/alerts?limit=100').then(
      (page) => mine === gen && render(page),
      (err) => mine === gen && unavailable(body, 'Alerts', err),
    );
  }

  $('alert-test-button', HTMLButtonElement).addEventListener('click', () => {
    const button = $('alert-test-button', HTMLButtonElement);
    button.disabled = true;
    api('POST', '/api/alerts/test')
      .then(
        (res) => {
          const outcome = res && res.status ? show(res.status) : 'sent';
          const where = res && res.webhook_host ? ' to ' + show(res.webhook_host) : '';
          const why = res && res.error ? ': ' + show(res.error) : '';
          const kind = res && res.status === 'failed' ? 'error' : res && res.status === 'suppressed' ? 'info' : 'ok';
          inlineMessage(button, kind, 'Test alert ' + outcome + where + why + '.');
          return showScreen('', true);
        },
        (err) => {
          if (!(err instanceof AuthError)) inlineMessage(button, 'error', 'Test alert: ' + describe(err));
        },
      )
      .then(() => {
        button.disabled = false;
      });
  });

  return { show: showScreen };
}

/**
 * @param {string} title
 * @param {Array<[string, string, string]>} rows label, value, hint
 */
function settingsGroup(title, rows) {
  const card = el('div', 'card settings-card');
  card.appendChild(el('h3', '', title));
  const dl = el('dl', 'settings');
  for (const [label, value, hint] of rows) {
    dl.appendChild(el('dt', '', label));
    const dd = el('dd', '', value);
    if (hint) dd.appendChild(el('span', 'sub muted', hint));
    dl.appendChild(dd);
  }
  card.appendChild(dl);
  return card;
}

/** @param {number | null | undefined} n */
const days = (n) => (n === null || n === undefined ? '—' : show(n) + (Number(n) === 1 ? ' day' : ' days'));

export function initSettings() {
  const body = $('settings-body');

  /** @param {Settings} s */
  function render(s) {
    const retention = (s && s.retention) || {};
    /** @type {NonNullable<Settings['alerts']>} */
    const alerts = (s && s.alerts) || {};
    body.replaceChildren();
    const grid = el('div', 'settings-grid');
    grid.id = 'settings-grid';
    grid.appendChild(
      settingsGroup('Retention', [
        ['Sync log', days(retention.sync_log_days), 'SYNC_LOG_RETENTION_DAYS: finished entries older than this are deleted daily'],
        ['Webhook inbox', days(retention.inbox_days), 'INBOX_RETENTION_DAYS'],
      ]),
    );
    grid.appendChild(
      settingsGroup('Alerts', [
        [
          'Alert webhook',
          alerts.webhook_configured ? 'configured (' + show(alerts.webhook_host) + ')' : 'not configured',
          'ALERT_WEBHOOK_URL (only its host is shown)',
        ],
        [
          'Minimum interval',
          alerts.min_interval_seconds === undefined ? '—' : show(alerts.min_interval_seconds) + ' s',
          'ALERT_MIN_INTERVAL_SECONDS: one message per kind at most',
        ],
        ['Console address', show(alerts.public_url || s.public_url), 'PUBLIC_URL: the link in alert messages'],
      ]),
    );
    body.appendChild(grid);
    body.appendChild(el('p', 'muted', 'These settings come from the environment; change them there and restart the daemon.'));
  }

  /**
   * @param {string} _arg
   * @param {boolean} [refresh]
   */
  function showScreen(_arg, refresh) {
    if (!refresh) body.replaceChildren(el('p', 'muted loading', 'Loading…'));
    return api('GET', '/api/settings').then(render, (err) => unavailable(body, 'Settings', err));
  }

  return { show: showScreen };
}
