// @ts-check
/**
 * The Overview's funnel (`GET /api/funnel?window=`): per CRM, how far records went, from read to written to the CRM,
 * each step a bar as long as its share of the first, with its count, its amount, and a link to the items behind it
 * (the sync log filtered to them, the mappings, or the automations); then a chart of approved amounts per day.
 */
import { ApiError, AuthError, api, describe } from './api.js';
import { amountChart } from './chart.js';
import { el, link } from './dom.js';

/** @typedef {{ label: string, count: number, amount: string | null, link: string }} FunnelPart */
/** @typedef {FunnelPart & { step: string, parts: FunnelPart[] }} FunnelStep */
/** @typedef {{ crm: string, name: string, steps: FunnelStep[] }} FunnelCrm */
/** @typedef {{ window: string, since: string, crms: FunnelCrm[], approved_per_day: Array<{ day: string, approved: number, amount: string }> }} Funnel */

const MONEY = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * An amount (exact decimal text) as people read it, with thousands separators.
 * @param {string | null} amount
 */
export function money(amount) {
  return amount === null || amount === undefined ? '' : MONEY.format(Number(amount));
}

/**
 * The console's screen for an admin API query: `/api/sync-logs?…` is the sync log with those filters (`#logs/?…`),
 * `/api/mappings?…` the mappings, `/api/automations` the automations.
 * @param {string} apiLink
 */
export function screenOf(apiLink) {
  const [path, search] = apiLink.split('?');
  if (path === '/api/sync-logs') return '#logs/?' + (search || '');
  if (path === '/api/mappings') return '#mappings';
  if (path === '/api/automations') return '#automations';
  if (path === '/api/revenue/drifts') return '#revenue';
  return '#overview';
}

/** The funnel's card, and `load(window)` that fills it. */
export function funnelCard() {
  const card = el('section', 'card funnel-card');
  card.id = 'overview-funnel';
  const head = el('div', 'funnel-head');
  head.appendChild(el('h3', '', 'From CRM record to sale'));
  const label = el('label', 'window', 'Window ');
  const select = /** @type {HTMLSelectElement} */ (el('select'));
  select.id = 'funnel-window';
  for (const [value, text] of [
    ['24h', 'last 24 hours'],
    ['7d', 'last 7 days'],
    ['30d', 'last 30 days'],
  ]) {
    const option = /** @type {HTMLOptionElement} */ (el('option', '', text));
    option.value = value;
    select.appendChild(option);
  }
  select.value = '7d';
  label.appendChild(select);
  head.appendChild(label);
  card.appendChild(head);
  const body = el('div', 'funnel-body');
  card.appendChild(body);
  let gen = 0;

  function load() {
    const mine = ++gen;
    return api('GET', '/api/funnel?window=' + encodeURIComponent(select.value)).then(
      /** @param {Funnel} f */
      (f) => {
        if (mine === gen) draw(f);
      },
      (err) => {
        if (mine !== gen || err instanceof AuthError) return;
        const missing = err instanceof ApiError && err.routeMissing;
        body.replaceChildren(el('div', 'unavailable ' + (missing ? 'info' : 'error'), 'The funnel is ' + (missing ? '' : 'failing: ') + describe(err)));
      },
    );
  }

  /** @param {Funnel} f */
  function draw(f) {
    body.replaceChildren();
    const columns = el('div', 'funnel-columns');
    for (const crm of f.crms || []) columns.appendChild(crmColumn(crm));
    body.appendChild(columns);
    const chart = el('div', 'funnel-chart');
    chart.appendChild(el('h4', '', 'Approved per day'));
    const days = Array.isArray(f.approved_per_day) ? f.approved_per_day : [];
    if (days.some((d) => d.approved > 0)) chart.appendChild(amountChart(days));
    else chart.appendChild(el('p', 'muted', 'No proposal approved in this window.'));
    body.appendChild(chart);
  }

  select.addEventListener('change', () => void load());
  return { card, load };
}

/** @param {FunnelCrm} crm */
function crmColumn(crm) {
  const box = el('div', 'funnel-crm');
  box.dataset.crm = crm.crm;
  box.appendChild(el('h4', '', crm.name));
  const list = el('ol', 'funnel-steps');
  const flow = crm.steps.filter((s) => s.step !== 'failed' && s.step !== 'waiting');
  const top = Math.max(1, ...flow.map((s) => Number(s.count) || 0));
  for (const step of crm.steps) {
    const trouble = step.step === 'failed' || step.step === 'waiting';
    const item = el('li', 'funnel-step' + (trouble ? ' funnel-trouble' : '') + (trouble && step.count > 0 ? ' funnel-' + step.step : ''));
    item.dataset.step = step.step;
    const line = el('div', 'funnel-line');
    line.appendChild(el('span', 'funnel-label', step.label));
    const count = link(String(step.count), screenOf(step.link), 'funnel-count num');
    count.title = 'See them: ' + step.link;
    line.appendChild(count);
    line.appendChild(el('span', 'funnel-amount num', money(step.amount)));
    item.appendChild(line);
    if (!trouble) item.appendChild(shareBar((Number(step.count) || 0) / top));
    if (step.parts && step.parts.length) {
      const parts = el('div', 'funnel-parts muted');
      step.parts.forEach((p, i) => {
        if (i) parts.appendChild(document.createTextNode(' · '));
        parts.appendChild(link(p.label + ' ' + p.count + (p.amount ? ' (' + money(p.amount) + ')' : ''), screenOf(p.link)));
      });
      item.appendChild(parts);
    }
    list.appendChild(item);
  }
  box.appendChild(list);
  return box;
}

/**
 * A bar as long as `share` (0 to 1) of the column: SVG, whose sizes are attributes (the console's CSP allows no style attribute).
 * @param {number} share
 */
function shareBar(share) {
  const NS = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('class', 'funnel-bar');
  svg.setAttribute('viewBox', '0 0 100 8');
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('aria-hidden', 'true');
  const rect = document.createElementNS(NS, 'rect');
  rect.setAttribute('width', Math.max(share > 0 ? 1 : 0, share * 100).toFixed(1));
  rect.setAttribute('height', '8');
  rect.setAttribute('rx', '2');
  svg.appendChild(rect);
  return svg;
}
