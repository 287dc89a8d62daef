// @ts-check
/**
 * The Overview screen (`GET /api/overview?window=24h|7d`): counts by status and by kind, success rate, a chart of
 * actions per hour by outcome, the oldest queued action's age, deliveries waiting, and the connections' state.
 */
import { ApiError, AuthError, api, describe } from './api.js';
import { barChart } from './chart.js';
import { funnelCard } from './funnel.js';
import { $, badge, el, fmtDuration, show } from './dom.js';

/**
 * The first of `keys` that `obj` (or its `counts`) has.
 * @param {any} obj the overview's answer (its names have changed over versions, hence the candidates)
 * @param {string[]} keys
 * @returns {any}
 */
function pick(obj, keys) {
  for (const source of [obj, obj && obj.counts]) {
    if (!source || typeof source !== 'object') continue;
    for (const k of keys) if (source[k] !== undefined && source[k] !== null) return source[k];
  }
  return undefined;
}

/** `{a: 1}` or `[{status: 'a', count: 1}]` as `[['a', 1]]`. */
/**
 * @param {unknown} value
 * @param {string[]} nameKeys
 * @returns {Array<[string, number]>}
 */
function pairs(value, nameKeys) {
  if (Array.isArray(value)) {
    return value.map(
      /** @param {Record<string, unknown>} x @returns {[string, number]} */ (x) => {
        const name = nameKeys.map((k) => x[k]).find((v) => v !== undefined);
        return [show(name), Number(x.count !== undefined ? x.count : x.n) || 0];
      },
    );
  }
  if (value && typeof value === 'object') return Object.entries(value).map(([k, v]) => /** @type {[string, number]} */ ([k, Number(v) || 0]));
  return [];
}

/**
 * "Zoho calls today: N of your org's daily allowance of A (p %)": what the day's calls of every replica cost in credits.
 * @param {{ calls: number | null, allowance: number, day: string }} today
 */
function zohoCallsLine(today) {
  const line = el('p', 'muted zoho-calls');
  line.id = 'zoho-calls-today';
  const allowance = Number(today.allowance).toLocaleString('en-US');
  if (today.calls === null || today.calls === undefined) {
    line.textContent = `Zoho calls today: not known (Redis did not answer) of your org's daily allowance of ${allowance}`;
  } else {
    const share = ((Number(today.calls) / Number(today.allowance)) * 100).toFixed(2);
    line.textContent = `Zoho calls today (${today.day} UTC): ${Number(today.calls).toLocaleString('en-US')} of your org's daily allowance of ${allowance} (${share} %)`;
    if (Number(today.calls) > Number(today.allowance) * 0.8) line.classList.add('warn');
  }
  return line;
}

/**
 * @param {string} label
 * @param {string} value
 * @param {string} [sub]
 * @param {string} [className]
 */
function stat(label, value, sub, className) {
  const card = el('div', 'stat ' + (className || ''));
  card.appendChild(el('div', 'stat-label', label));
  card.appendChild(el('div', 'stat-value', value));
  if (sub) card.appendChild(el('div', 'stat-sub', sub));
  return card;
}

/**
 * @param {string} title
 * @param {Array<[string, number]>} rows
 * @param {boolean} [withBadge]
 */
function countList(title, rows, withBadge) {
  const box = el('div', 'card count-card');
  box.appendChild(el('h3', '', title));
  const list = el('dl', 'counts');
  if (rows.length === 0) list.appendChild(el('dd', 'muted', 'Nothing in this window.'));
  for (const [name, n] of rows.sort((a, b) => b[1] - a[1])) {
    const dt = el('dt');
    if (withBadge) dt.appendChild(badge(name, null));
    else dt.textContent = name;
    list.appendChild(dt);
    list.appendChild(el('dd', 'num', String(n)));
  }
  box.appendChild(list);
  return box;
}

/**
 * Projects the automations created in the window, by CRM; the failed creations in red.
 * @param {{ total?: unknown, appointment?: unknown, record?: unknown, failed?: unknown }} c
 */
function createdStat(c) {
  const failed = Number(c.failed) || 0;
  const sub = (Number(c.appointment) || 0) + ' from appointments · ' + (Number(c.record) || 0) + ' from Zoho' + (failed ? ' · ' + failed + ' failed' : '');
  const card = stat('Projects created', String(Number(c.total) || 0), sub, failed > 0 ? 'bad' : '');
  card.id = 'overview-projects-created';
  return card;
}

/** @param {number | string | null | undefined} seconds */
function ageText(seconds) {
  if (seconds === null || seconds === undefined) return 'none queued';
  return fmtDuration(Number(seconds) * 1000);
}

/** @type {Record<string, string>} */
const NAMES = { service: 'Service', appointment_crm: 'Appointment CRM', record_crm: 'Zoho CRM', webhooks: 'Webhooks' };

/** @param {import('./connection-words.js').ConnectionView & { api_usage?: { used?: unknown, max?: unknown } }} c */
function connectionCard(c) {
  const status = show(c.status);
  const card = el('div', 'card conn conn-' + status);
  card.dataset.name = show(c.name);
  const head = el('div', 'conn-head');
  head.appendChild(el('h3', '', NAMES[show(c.name)] || show(c.name).replace(/_/g, ' ')));
  head.appendChild(el('span', 'badge c-' + status, status.replace(/_/g, ' ')));
  card.appendChild(head);
  /** @type {Record<string, string>} */
  const fallbacks = { connected: 'Working.', not_configured: 'Not configured.', degraded: 'Degraded.' };
  const fallback = fallbacks[status] || '—';
  card.appendChild(el('p', 'conn-detail', c.detail ? show(c.detail) : fallback));
  if (c.checked_at) card.appendChild(el('p', 'sub muted', 'checked ' + show(c.checked_at)));
  const usage = c.api_usage;
  if (usage && typeof usage.used === 'number' && typeof usage.max === 'number') {
    const percent = usage.max > 0 ? Math.round((usage.used / usage.max) * 100) : 0;
    card.appendChild(el('p', 'sub api-usage', `Salesforce API requests today: ${usage.used.toLocaleString()} of ${usage.max.toLocaleString()} (${percent}%)`));
  }
  return card;
}

export function initOverview() {
  const body = $('overview-body');
  let gen = 0;
  // The funnel keeps its own window (30 days too) and is drawn once, above the rest; a refresh reloads it.
  const funnel = funnelCard();

  /** @param {any} o the overview (read through `pick`) */
  function render(o) {
    body.replaceChildren(funnel.card);
    const rate = pick(o, ['success_rate', 'successRate']);
    const byStatus = pairs(pick(o, ['by_status', 'status', 'statuses']), ['status', 'name']);
    const byKind = pairs(pick(o, ['by_kind', 'kind', 'kinds']), ['kind', 'name']);
    const total = byStatus.reduce((s, [, n]) => s + n, 0);
    const failedN = (byStatus.find(([k]) => k === 'failed') || [0, 0])[1];
    const waiting = pick(o, ['deliveries_waiting', 'waiting_deliveries', 'inbox_waiting']);
    const oldest = pick(o, ['oldest_queued_age_seconds', 'oldest_queued_seconds']);

    const stats = el('div', 'stats');
    stats.id = 'overview-stats';
    stats.appendChild(
      stat(
        'Success rate',
        rate === null || rate === undefined ? '—' : (Number(rate) * (Number(rate) <= 1 ? 100 : 1)).toFixed(1) + ' %',
        'of finished actions',
        Number(rate) < 0.95 ? 'warn' : 'good',
      ),
    );
    stats.appendChild(stat('Actions', String(total), failedN + ' failed', failedN > 0 ? 'bad' : ''));
    stats.appendChild(stat('Oldest queued', ageText(oldest), 'waiting to run', Number(oldest) > 600 ? 'warn' : ''));
    stats.appendChild(stat('Deliveries waiting', show(waiting === undefined ? null : waiting), 'stored, not yet routed', Number(waiting) > 0 ? 'warn' : ''));
    const created = pick(o, ['projects_created']);
    if (created && typeof created === 'object') {
      stats.classList.add('stats-5');
      stats.appendChild(createdStat(created));
    }
    body.appendChild(stats);
    const zohoCalls = pick(o, ['zoho_calls_today']);
    if (zohoCalls && typeof zohoCalls === 'object') body.appendChild(zohoCallsLine(zohoCalls));

    const chartCard = el('div', 'card chart-card');
    chartCard.appendChild(el('h3', '', 'Actions per hour by outcome'));
    const buckets = pick(o, ['per_hour', 'hours', 'buckets', 'hourly']);
    if (Array.isArray(buckets) && buckets.length) chartCard.appendChild(barChart(buckets));
    else chartCard.appendChild(el('p', 'muted', 'No actions in this window.'));
    body.appendChild(chartCard);

    const grid = el('div', 'overview-grid');
    grid.appendChild(countList('By status', byStatus, true));
    grid.appendChild(countList('By kind', byKind, false));
    body.appendChild(grid);

    const conns = pick(o, ['connections']);
    // An array of {name, status, detail}, `{items}`, or an object by name.
    const items = Array.isArray(conns)
      ? conns
      : conns && Array.isArray(conns.items)
        ? conns.items
        : conns && typeof conns === 'object'
          ? Object.entries(conns).map(([name, c]) => Object.assign({ name }, c && typeof c === 'object' ? c : { status: c }))
          : [];
    body.appendChild(el('h3', 'section-title', 'Connections'));
    const cards = el('div', 'conn-grid');
    cards.id = 'overview-connections';
    if (items.length === 0) cards.appendChild(el('p', 'muted', 'No connection state in the answer.'));
    for (const c of items) cards.appendChild(connectionCard(c));
    body.appendChild(cards);
  }

  /**
   * @param {string} _arg
   * @param {boolean} [refresh]
   */
  function show_(_arg, refresh) {
    const mine = ++gen;
    if (!refresh) body.replaceChildren(el('p', 'muted loading', 'Loading…'));
    void funnel.load();
    return api('GET', '/api/overview?window=' + encodeURIComponent($('overview-window', HTMLSelectElement).value)).then(
      (o) => {
        if (mine === gen) render(o || {});
      },
      (err) => {
        if (mine !== gen || err instanceof AuthError) return;
        const missing = err instanceof ApiError && err.routeMissing;
        body.replaceChildren(el('div', 'unavailable ' + (missing ? 'info' : 'error'), 'The overview is ' + (missing ? '' : 'failing: ') + describe(err)));
      },
    );
  }

  $('overview-window', HTMLSelectElement).addEventListener('change', () => show_('', false));
  return { show: show_ };
}
