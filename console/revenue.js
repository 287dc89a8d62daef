// @ts-check
/**
 * The Revenue screen (`#revenue`): per CRM, how many approved proposals (and how much) the CRM still holds as the
 * service approved them, and how many drifted (`GET /api/revenue/summary`); then the drifts (`GET /api/revenue/drifts`),
 * grouped by kind, each with the service's value, what crm-sync last wrote and the CRM's value now, who changed it
 * and when, links to the record, the project and the write, and the operator's two decisions: heal (write the
 * service's value again) or accept theirs. A pass of the check can be started here too.
 */
import { api, describe, query } from './api.js';
import { money } from './funnel.js';
import { $, badge, can, el, emptyRow, fmtTime, inlineMessage, link, notify, projectLink, show, table, td, webLink } from './dom.js';

/** @typedef {import('./api-types').components['schemas']['DriftView']} Drift */
/** @typedef {import('./api-types').components['schemas']['RevenueSummaryView']} Summary */

/** What each kind means, in the words of revenue ops. */
export const KIND_WORDS = /** @type {Record<string, string>} */ ({
  amount: 'Deal amount differs',
  stage: 'Deal stage moved back',
  closing_date: 'Closing date differs',
  quote_total: 'Quote total differs',
  quote_rows: 'Quote rows changed',
  sale_missing: 'Sale missing',
  sale_items: 'Sale or items changed',
  status: 'Status not Sold',
  file_missing: 'Proposal file missing',
});

const STATES = ['open', 'accepted', 'healed'];

/**
 * A project's drifts, for its view: the kind, the record, the three values, who changed it and the state; the
 * decisions are on the Revenue screen.
 * @param {Drift[]} drifts
 */
export function projectDrifts(drifts) {
  const { table: t, body } = table(['Difference', 'Record', 'The service', 'crm-sync wrote', 'The CRM now', 'Changed by', 'State']);
  t.className = 'revenue-table project-drifts';
  for (const d of drifts) {
    const row = el('tr');
    row.dataset.kind = d.kind;
    row.appendChild(td(KIND_WORDS[d.kind] || d.kind));
    const record = el('td');
    record.appendChild(el('span', 'mono', d.target));
    const web = webLink(d.link, d.crm);
    if (web) record.appendChild(web);
    row.appendChild(record);
    row.appendChild(td(show(d.service_value), 'revenue-service'));
    row.appendChild(td(show(d.written_value), 'revenue-written'));
    row.appendChild(td(show(d.crm_value), 'revenue-crm-value'));
    row.appendChild(td(show(d.changed_by) + ' · ' + fmtTime(d.changed_at), 'revenue-who'));
    const state = el('td');
    state.appendChild(badge(d.state, STATES));
    row.appendChild(state);
    body.appendChild(row);
  }
  return t;
}

export function initRevenue() {
  const body = $('revenue-body');
  const crmSelect = $('revenue-crm', HTMLSelectElement);
  const stateSelect = $('revenue-state', HTMLSelectElement);
  let gen = 0;

  /** @param {string} [_arg] @param {boolean} [_refresh] */
  function load(_arg, _refresh) {
    const mine = ++gen;
    const filter = { crm: crmSelect.value, state: stateSelect.value, limit: '500' };
    return Promise.all([api('GET', '/api/revenue/summary'), api('GET', '/api/revenue/drifts' + query(filter))]).then(
      ([summary, page]) => {
        if (mine === gen) draw(/** @type {Summary} */ (summary), /** @type {{ items: Drift[] }} */ (page).items);
      },
      (err) => {
        if (mine === gen) body.replaceChildren(el('div', 'unavailable error', 'The revenue check is failing: ' + describe(err)));
      },
    );
  }

  /** @param {Summary} summary @param {Drift[]} drifts */
  function draw(summary, drifts) {
    body.replaceChildren();
    const cards = el('div', 'revenue-cards');
    for (const crm of summary.crms) cards.appendChild(crmCard(crm));
    body.appendChild(cards);
    const last = el('p', 'muted revenue-last');
    last.textContent = summary.last_check_at
      ? 'Last check ' + fmtTime(summary.last_check_at) + ': ' + show(summary.last_check_detail)
      : 'No pass of the revenue check yet.';
    body.appendChild(last);
    if (drifts.length === 0) {
      body.appendChild(el('p', 'revenue-none', stateSelect.value === 'open' ? 'Every checked record holds what the service approved.' : 'No drift matches.'));
      return;
    }
    /** @type {Map<string, Drift[]>} */
    const byKind = new Map();
    for (const d of drifts) byKind.set(d.kind, [...(byKind.get(d.kind) || []), d]);
    for (const [kind, rows] of byKind) body.appendChild(kindGroup(kind, rows));
  }

  /** @param {Summary['crms'][number]} crm */
  function crmCard(crm) {
    const card = el('section', 'card revenue-crm');
    card.dataset.crm = crm.crm;
    card.appendChild(el('h3', '', crm.name));
    const line = (/** @type {string} */ cls, /** @type {string} */ label, /** @type {number} */ count, /** @type {string} */ amount) => {
      const row = el('div', 'revenue-line ' + cls);
      row.appendChild(el('span', 'revenue-label', label));
      row.appendChild(el('span', 'revenue-count num', String(count)));
      row.appendChild(el('span', 'revenue-amount num', money(amount)));
      return row;
    };
    card.appendChild(line('agree', 'In agreement', crm.in_agreement, crm.in_agreement_amount));
    card.appendChild(line(crm.drifted > 0 ? 'drift' : 'agree', 'Drifted', crm.drifted, crm.drifted_amount));
    card.appendChild(line('total', 'Approved', crm.approved, crm.approved_amount));
    return card;
  }

  /** @param {string} kind @param {Drift[]} rows */
  function kindGroup(kind, rows) {
    const group = el('section', 'revenue-kind');
    group.dataset.kind = kind;
    group.appendChild(el('h3', '', (KIND_WORDS[kind] || kind) + ' (' + rows.length + ')'));
    const { table: t, body: tbody } = table(['Record', 'Project', 'The service', 'crm-sync wrote', 'The CRM now', 'Changed by', 'State', '']);
    t.className = 'revenue-table';
    for (const d of rows) tbody.appendChild(driftRow(d));
    if (rows.length === 0) emptyRow(tbody, 'None.', 8);
    group.appendChild(t);
    return group;
  }

  /** @param {Drift} d */
  function driftRow(d) {
    const row = el('tr');
    row.dataset.drift = d.id;
    const record = el('td');
    record.appendChild(el('span', 'mono', d.target));
    const web = webLink(d.link, d.crm);
    if (web) record.appendChild(web);
    row.appendChild(record);
    const project = el('td');
    project.appendChild(projectLink(d.project_id));
    row.appendChild(project);
    row.appendChild(td(show(d.service_value), 'revenue-service'));
    const written = el('td', 'revenue-written');
    written.appendChild(el('span', '', show(d.written_value)));
    if (d.written_entry_id) written.appendChild(link('#' + d.written_entry_id, '#logs/' + encodeURIComponent(d.written_entry_id), 'muted entry-link'));
    row.appendChild(written);
    row.appendChild(td(show(d.crm_value), 'revenue-crm-value'));
    const who = el('td', 'revenue-who');
    who.appendChild(el('span', '', show(d.changed_by) + (d.by_crm_sync ? ' (crm-sync)' : '')));
    who.appendChild(el('span', 'muted nowrap', fmtTime(d.changed_at)));
    row.appendChild(who);
    const state = el('td');
    state.appendChild(badge(d.state, STATES));
    row.appendChild(state);
    const actions = el('td', 'revenue-actions');
    if (d.state === 'open' && can('operator')) {
      actions.appendChild(decision(d, 'heal', 'Heal', "Write the service's value again"));
      actions.appendChild(decision(d, 'accept', 'Accept theirs', "Keep the CRM's value until the service's changes"));
    }
    row.appendChild(actions);
    return row;
  }

  /** @param {Drift} d @param {'heal' | 'accept'} what @param {string} label @param {string} title */
  function decision(d, what, label, title) {
    const button = el('button', what === 'heal' ? 'primary' : '', label);
    button.type = 'button';
    button.title = title + ' (POST /api/revenue/drifts/' + d.id + '/' + what + ')';
    button.dataset.action = what;
    button.addEventListener('click', () => {
      button.disabled = true;
      api('POST', '/api/revenue/drifts/' + encodeURIComponent(d.id) + '/' + what).then(
        (answer) => {
          notify(
            'ok',
            what === 'heal' ? 'Healing ' + d.target + ': sync log entry ' + show(answer && answer.id) + '.' : 'Accepted the CRM’s value of ' + d.target + '.',
          );
          void load();
        },
        (err) => {
          button.disabled = false;
          inlineMessage(button, 'error', describe(err));
        },
      );
    });
    return button;
  }

  /** @param {HTMLButtonElement} button @param {'changes' | 'full'} scope */
  function startCheck(button, scope) {
    button.disabled = true;
    api('POST', '/api/revenue/check', { scope }).then(
      (answer) => {
        button.disabled = false;
        notify('ok', (scope === 'full' ? 'A full revenue check' : 'A revenue check') + ' is under way: sync log entry ' + show(answer && answer.id) + '.');
      },
      (err) => {
        button.disabled = false;
        inlineMessage(button, 'error', describe(err));
      },
    );
  }

  crmSelect.addEventListener('change', () => void load());
  stateSelect.addEventListener('change', () => void load());
  $('revenue-check-button', HTMLButtonElement).addEventListener('click', (ev) => startCheck(/** @type {HTMLButtonElement} */ (ev.currentTarget), 'changes'));
  $('revenue-full-button', HTMLButtonElement).addEventListener('click', (ev) => startCheck(/** @type {HTMLButtonElement} */ (ev.currentTarget), 'full'));
  return { show: load };
}
