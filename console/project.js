// @ts-check
/**
 * The project view (`GET /api/projects/:project_id`, reached from any project id link or the search box): its
 * mappings, the deliveries about it, and its actions drawn as chains (an indented tree by `parent_id`), each linking
 * to its detail.
 */
import { ApiError, AuthError, api, describe } from './api.js';
import { projectDrifts } from './revenue.js';
import { $, badge, crmRecordOf, el, fmtDuration, fmtTime, link, namedId, show, table, targetOf, td, timeCell, webLink } from './dom.js';

/** A row of the project's answer (a mapping, a delivery, an action); the fields the screen reads. @typedef {{ id: string, [field: string]: any }} Row */

/**
 * @param {any} v
 * @returns {Row[]}
 */
const listOf = (v) => (Array.isArray(v) ? v : v && Array.isArray(v.items) ? v.items : []);

/**
 * @param {HTMLElement} parent
 * @param {string} title
 * @param {number} [count]
 */
function section(parent, title, count) {
  const box = el('section', 'project-section');
  const h = el('h3', 'section-title', title);
  if (count !== undefined) h.appendChild(el('span', 'count', String(count)));
  box.appendChild(h);
  parent.appendChild(box);
  return box;
}

/** @param {Row[]} mappings */
function mappingsTable(mappings) {
  const { table: t, body } = table(['ID', 'CRM', 'Appointment / record', 'Made by', 'Status', 'Error', 'Updated']);
  for (const m of mappings) {
    const tr = el('tr');
    tr.appendChild(td(show(m.id), 'mono'));
    tr.appendChild(td(show(m.crm)));
    const record = el('td');
    record.appendChild(crmRecordOf(m));
    tr.appendChild(record);
    tr.appendChild(td(show(m.source)));
    const st = el('td');
    st.appendChild(badge(show(m.status), null));
    tr.appendChild(st);
    tr.appendChild(td(m.error ? show(m.error) : '', 'err wrap'));
    tr.appendChild(timeCell(m.updated_at || m.created_at));
    body.appendChild(tr);
  }
  return t;
}

/** @param {Row[]} deliveries */
function deliveriesTable(deliveries) {
  const { table: t, body } = table(['ID', 'Received', 'Endpoint', 'Event', 'Status']);
  for (const d of deliveries) {
    const tr = el('tr');
    const id = el('td', 'mono');
    id.appendChild(link(show(d.id), '#inbox/' + encodeURIComponent(show(d.id))));
    tr.appendChild(id);
    tr.appendChild(timeCell(d.received_at || d.created_at));
    tr.appendChild(td(show(d.endpoint), 'mono'));
    tr.appendChild(td(show(d.event)));
    const st = el('td');
    st.appendChild(badge(show(d.status), null));
    tr.appendChild(st);
    body.appendChild(tr);
  }
  return t;
}

/** One action as a line of the tree: kind, status, target, time, error; its id opens it in the sync log. */
/** @param {Row} a */
function actionLine(a) {
  const line = el('div', 'chain-line');
  line.dataset.id = show(a.id);
  line.appendChild(link('#' + show(a.id), '#logs/' + encodeURIComponent(show(a.id)), 'mono chain-id'));
  line.appendChild(el('span', 'chain-kind', show(a.kind)));
  line.appendChild(badge(show(a.status), null));
  if (a.crm) line.appendChild(el('span', 'muted mono', show(a.crm) + (a.target ? ' →' : '')));
  if (a.target) line.appendChild(targetOf(a.target_name, a.target, a.target_web_url, a.crm));
  line.appendChild(
    el('span', 'muted', fmtTime(a.created_at) + (a.duration_ms !== null && a.duration_ms !== undefined ? ' · ' + fmtDuration(a.duration_ms) : '')),
  );
  if (a.error) line.appendChild(el('span', 'err chain-error', show(a.error)));
  return line;
}

/** Actions as chains: each action under its parent (nested lists indent), roots newest first, children in order. */
/** @param {Row[]} actions */
export function chainTree(actions) {
  const byId = new Map(actions.map((a) => [show(a.id), a]));
  /** @type {Map<string, Row[]>} */
  const children = new Map();
  /** @type {Row[]} */
  const roots = [];
  for (const a of actions) {
    const parent = a.parent_id === null || a.parent_id === undefined ? null : show(a.parent_id);
    if (parent && byId.has(parent)) {
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent)?.push(a);
    } else roots.push(a);
  }
  /** @param {Row} a */
  const num = (a) => Number(show(a.id)) || 0;
  /**
   * @param {Row[]} list
   * @param {number} depth
   * @returns {HTMLUListElement}
   */
  const build = (list, depth) => {
    const ul = el('ul', depth === 0 ? 'chains' : 'chain-children');
    for (const a of list) {
      const li = el('li');
      li.appendChild(actionLine(a));
      const kids = (children.get(show(a.id)) || []).sort((x, y) => num(x) - num(y));
      if (kids.length && depth < 50) li.appendChild(build(kids, depth + 1));
      ul.appendChild(li);
    }
    return ul;
  };
  return build(
    roots.sort((x, y) => num(y) - num(x)),
    0,
  );
}

/**
 * The project's Deal as crm-sync last wrote it (`update_deal`): amount, stage, closing date, and the entry that wrote it.
 * @param {{ target: string, web_url?: string | null, amount: string | null, stage: string | null, closing_date: string | null, proposal_id: string, written_at: string, sync_log_id: string }} deal
 */
export function dealLine(deal) {
  const line = el('p', 'deal-line');
  line.id = 'project-deal';
  line.appendChild(el('span', '', 'Deal '));
  line.appendChild(el('span', 'mono', show(deal.target)));
  const parts = [
    deal.amount !== null ? 'amount ' + show(deal.amount) : null,
    deal.stage !== null ? 'stage ' + show(deal.stage) : null,
    deal.closing_date !== null ? 'closing ' + show(deal.closing_date) : null,
  ].filter((x) => x !== null);
  line.appendChild(el('span', '', ': ' + parts.join(', ') + ' (proposal ' + show(deal.proposal_id) + ', written ' + fmtTime(deal.written_at) + ') '));
  line.appendChild(link('#' + show(deal.sync_log_id), '#logs/' + encodeURIComponent(show(deal.sync_log_id)), 'mono'));
  const opens = webLink(deal.web_url, 'record');
  if (opens) line.append(' ', opens);
  return line;
}

/**
 * Where the project came from, when an automation created it for a CRM record (its mapping's source): "Created
 * from appointment APT-1001, 2026-11-24 10:02". The mapping is made as the project is created.
 * @param {Row[]} mappings
 * @param {Row[]} actions the project's actions: the creation's entry among them is linked
 */
function originLine(mappings, actions) {
  const m = mappings.find((x) => x.source === 'automation');
  if (!m) return null;
  const record = m.crm === 'record' ? 'Zoho ' + show(m.record_crm_module) + ' record ' + show(m.record_crm_record_id) : 'appointment ' + show(m.appointment_id);
  const line = el('p', 'project-origin');
  line.id = 'project-origin';
  line.appendChild(document.createTextNode('Created from '));
  line.appendChild(el('strong', 'mono', record));
  if (m.crm_record_name) line.appendChild(document.createTextNode(' (' + show(m.crm_record_name) + ')'));
  line.appendChild(
    document.createTextNode(', ' + fmtTime(m.created_at).slice(0, 16) + ', by the ' + (m.crm === 'record' ? 'Zoho CRM' : 'appointment CRM') + ' automation.'),
  );
  line.title = show(m.created_at);
  const entry = actions.find((a) => a.kind === 'create_project' && a.status === 'succeeded');
  if (entry) {
    line.appendChild(document.createTextNode(' '));
    line.appendChild(link('Sync log #' + show(entry.id), '#logs/' + encodeURIComponent(show(entry.id))));
  }
  return line;
}

export function initProject() {
  const body = $('project-body');
  let gen = 0;

  /**
   * @param {string} id
   * @param {import('./api.js').Schemas['ProjectView']} p the project's answer (`GET /api/projects/:id`)
   */
  function render(id, p) {
    body.replaceChildren();
    const head = el('div', 'panel-head');
    const h = el('h2', 'project-title');
    h.appendChild(namedId(p.name, id));
    head.appendChild(h);
    const customer = p.customer && typeof p.customer === 'object' ? p.customer : null;
    const who = customer ? [customer.name, customer.email, customer.phone].filter(Boolean).map(show) : [];
    if (who.length) head.appendChild(el('span', 'muted project-customer', 'Customer: ' + who.join(' · ')));
    head.appendChild(el('div', 'grow'));
    const logs = link('Sync log of this project', '#logs', 'button-link');
    logs.addEventListener('click', () => {
      // The sync log's filter set to this project (its form applies it), then the screen shown by the link.
      $('log-project', HTMLInputElement).value = id;
      $('log-filters', HTMLFormElement).requestSubmit();
    });
    head.appendChild(logs);
    body.appendChild(head);
    const mappings = listOf(p.mappings);
    const origin = originLine(mappings, listOf(p.actions));
    if (origin) body.appendChild(origin);
    if (p.deal) body.appendChild(dealLine(p.deal));
    const deliveries = listOf(p.deliveries);
    const actions = listOf(p.actions);
    const m = section(body, 'Mappings', mappings.length);
    m.appendChild(mappings.length ? wrapCard(mappingsTable(mappings)) : el('p', 'muted', 'This project is not mapped to any CRM.'));
    const c = section(body, 'Actions', actions.length);
    c.id = 'project-chains';
    c.appendChild(actions.length ? wrapCard(chainTree(actions), 'chain-card') : el('p', 'muted', 'No action for this project.'));
    const d = section(body, 'Deliveries', deliveries.length);
    d.appendChild(deliveries.length ? wrapCard(deliveriesTable(deliveries)) : el('p', 'muted', 'No stored delivery names this project.'));
    void revenueDrifts(id, mappings.length > 0);
  }

  /**
   * The project's revenue drifts (open and decided), after its mappings: what its CRMs hold otherwise than approved.
   * @param {string} id
   * @param {boolean} mapped
   */
  function revenueDrifts(id, mapped) {
    if (!mapped) return Promise.resolve();
    const mine = gen;
    return api('GET', '/api/revenue/drifts?project_id=' + encodeURIComponent(id) + '&limit=100').then(
      (page) => {
        if (mine !== gen) return;
        const drifts = listOf(page);
        const box = el('section', 'project-section');
        box.id = 'project-drifts';
        const h = el('h3', 'section-title', 'Revenue drifts');
        h.appendChild(el('span', 'count', String(drifts.filter((x) => x.state === 'open').length)));
        box.appendChild(h);
        const mappingsSection = body.querySelector('.project-section');
        if (mappingsSection) mappingsSection.after(box);
        else body.appendChild(box);
        if (drifts.length === 0) {
          box.appendChild(el('p', 'muted', 'The CRMs hold what the service approved (as of the last check).'));
          return;
        }
        box.appendChild(wrapCard(projectDrifts(/** @type {any} */ (drifts))));
        box.appendChild(link('Heal or accept on the Revenue screen', '#revenue', 'button-link'));
      },
      () => undefined,
    );
  }

  /**
   * @param {Node} node
   * @param {string} [className]
   */
  function wrapCard(node, className) {
    const card = el('div', 'card ' + (className || ''));
    card.appendChild(node);
    return card;
  }

  /**
   * @param {string} id
   * @param {boolean} [refresh]
   */
  function show_(id, refresh) {
    const mine = ++gen;
    $('project-search-input', HTMLInputElement).value = id || '';
    if (!id) {
      body.replaceChildren(el('p', 'muted', 'Enter a project id in the box above, or follow a project link.'));
      return Promise.resolve();
    }
    if (!refresh) body.replaceChildren(el('p', 'muted loading', 'Loading project ' + id + '…'));
    return api('GET', '/api/projects/' + encodeURIComponent(id)).then(
      (p) => {
        if (mine === gen) render(id, p || {});
      },
      (err) => {
        if (mine !== gen || err instanceof AuthError) return;
        const missing = err instanceof ApiError && err.routeMissing;
        const text = missing ? 'The project view is ' + describe(err) : 'Project ' + id + ': ' + describe(err);
        body.replaceChildren(el('div', 'unavailable ' + (missing || err.status === 404 ? 'info' : 'error'), text));
      },
    );
  }

  return { show: show_ };
}
