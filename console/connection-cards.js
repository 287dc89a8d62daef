// @ts-check
/**
 * The Connections screen's cards and banners: a card per connection with its state (drawn again on refresh), where
 * it was set, its Test button (operator) and its form (admin); banners for a missing key or unreadable secrets.
 */
import { CARDS, REGIONS, STATUS_LABELS, WEBHOOKS, checkWords, ending, upperFirst } from './connection-words.js';
import { copyRow } from './connection-widgets.js';
import { appointmentForm, serviceForm } from './connection-forms.js';
import { $, can, el, fmtTime, show } from './dom.js';
import { webhooksForm } from './webhooks-form.js';
import { reconnectButton, zohoForm } from './zoho-form.js';

/** @typedef {import('./connection-form-shell.js').Screen} Screen */
/** @typedef {import('./connection-words.js').CardDef} CardDef */
/** @typedef {import('./connection-words.js').ConnectionView} ConnectionView */
/** @typedef {import('./connection-words.js').ConnectionName} ConnectionName */
/** @typedef {Screen & { itemOf: (name: ConnectionName) => ConnectionView, runTest: (def: CardDef, button: HTMLButtonElement) => void }} CardsScreen */

/** @param {ConnectionView} c */
export const unreadable = (c) => c.status === 'degraded' && c.code === 'secrets_unreadable';

const FORMS = { service: serviceForm, appointment_crm: appointmentForm, record_crm: zohoForm, webhooks: webhooksForm };

/**
 * The banners above the cards: no usable key, a generated key to back up, secrets that cannot be read.
 * @param {CardsScreen} screen
 * @param {HTMLElement} body
 */
export function banners(screen, body) {
  const data = screen.data();
  const key = data.key || { ok: true, origin: null, path: null, problem: null };
  if (key.ok === false) {
    const box = el('div', 'conn-banner error');
    box.id = 'connections-key-problem';
    box.setAttribute('role', 'alert');
    box.appendChild(el('strong', '', 'Connections cannot be saved from the console. '));
    box.appendChild(document.createTextNode(upperFirst(show(key.problem)) + '. '));
    box.appendChild(
      el(
        'span',
        '',
        'Set CONNECTIONS_KEY in crm-sync’s environment (32 random bytes, written as 64 hex digits or in base64) and restart it. Connections set in the environment keep working.',
      ),
    );
    body.appendChild(box);
  } else if (key.origin === 'generated' && can('admin')) {
    const box = el('div', 'conn-banner info');
    box.appendChild(
      el(
        'span',
        '',
        'crm-sync created the key that encrypts the secrets saved here, in ' +
          show(key.path) +
          '. Back this file up: without it, what is saved here cannot be read and must be entered again.',
      ),
    );
    body.appendChild(box);
  }
  const bad = CARDS.filter((def) => unreadable(screen.itemOf(def.name)));
  // Without a key the banner above says it all.
  if (bad.length && key.ok !== false) {
    const box = el('div', 'conn-banner error');
    box.id = 'connections-unreadable';
    box.setAttribute('role', 'alert');
    box.appendChild(el('strong', '', 'Saved secrets cannot be read: ' + bad.map((d) => d.title).join(', ') + '. '));
    box.appendChild(
      document.createTextNode(
        'crm-sync is running with a different CONNECTIONS_KEY than the one they were saved with. Put that key back and restart crm-sync, or enter these connections again.',
      ),
    );
    body.appendChild(box);
  }
}

/**
 * A connection's card: the state (filled by {@link updateState}), the Test button and the form.
 * @param {CardsScreen} screen
 * @param {CardDef} def
 */
export function card(screen, def) {
  const c = screen.itemOf(def.name);
  const section = el('section', 'card conn-card');
  section.id = 'conn-' + def.path;
  section.dataset.name = def.name;
  const main = el('div', 'conn-main');
  const head = el('div', 'conn-card-head');
  head.appendChild(el('h3', '', def.title));
  const status = el('span', 'badge');
  status.id = 'conn-' + def.path + '-status';
  head.appendChild(status);
  main.appendChild(head);
  main.appendChild(el('p', 'conn-what muted', def.what));
  const state = el('div', 'conn-state');
  state.id = 'conn-' + def.path + '-state';
  main.appendChild(state);

  const testRow = el('div', 'conn-test-row');
  testRow.dataset.role = 'operator';
  testRow.hidden = !can('operator');
  const test = /** @type {HTMLButtonElement} */ (el('button', 'small', 'Test connection'));
  test.type = 'button';
  test.id = 'conn-' + def.path + '-test';
  test.title = 'One harmless call with the settings in use (POST /api/connections/' + def.path + '/test)';
  test.addEventListener('click', () => screen.runTest(def, test));
  testRow.appendChild(test);
  main.appendChild(testRow);
  if (def.name === 'webhooks') main.appendChild(webhookAddresses(screen, c));
  section.appendChild(main);

  const side = el('div', 'conn-side');
  if (c.read_only) {
    side.appendChild(
      el('p', 'conn-readonly', 'Set in crm-sync’s environment (' + def.env + '). Change it there and restart crm-sync, or unset it to manage it here.'),
    );
  } else {
    const wrap = el('div', 'conn-admin');
    wrap.dataset.role = 'admin';
    wrap.hidden = !can('admin');
    wrap.appendChild(FORMS[def.name](screen, def, c));
    side.appendChild(wrap);
    if (!can('admin')) side.appendChild(el('p', 'conn-readonly', 'An admin can change this connection.'));
  }
  section.appendChild(side);
  return section;
}

/**
 * Where the service must send each webhook, to copy into its settings; a warning while PUBLIC_URL is unset.
 * @param {Screen} screen
 * @param {ConnectionView} c
 */
function webhookAddresses(screen, c) {
  const data = screen.data();
  /** @type {Record<string, string>} */
  const addresses = data.webhook_addresses || (c.settings && c.settings.addresses) || {};
  const where = el('div', 'conn-addresses');
  where.appendChild(el('h4', '', 'Addresses to enter in the service’s webhook settings'));
  if (data.public_url_set === false) {
    const warn = el('div', 'conn-alert warn');
    warn.id = 'conn-webhooks-public-url';
    warn.appendChild(el('strong', '', 'PUBLIC_URL is not set. '));
    warn.appendChild(
      document.createTextNode(
        'These addresses use ' +
          show(data.public_url) +
          ', which the service cannot reach. Set PUBLIC_URL to the address where the service reaches crm-sync (its https address) and restart crm-sync.',
      ),
    );
    where.appendChild(warn);
  }
  for (const w of WEBHOOKS) {
    const row = el('div', 'conn-address');
    row.appendChild(el('span', 'conn-label', w.title));
    row.appendChild(copyRow('conn-webhooks-address-' + w.key, show(addresses[w.key]), w.title + ' address'));
    where.appendChild(row);
  }
  return where;
}

/**
 * The state's words: unreadable secrets, a failure in words picked by its code (the daemon's text under them), or
 * the detail.
 * @param {CardsScreen} screen
 * @param {CardDef} def
 * @param {ConnectionView} c
 */
function stateWords(screen, def, c) {
  const detail = c.detail ? show(c.detail) : '';
  if (unreadable(c)) {
    const box = el('div', 'conn-alert error');
    box.setAttribute('role', 'alert');
    box.appendChild(el('strong', '', 'The saved secrets cannot be read. '));
    box.appendChild(
      document.createTextNode(
        screen.keyOk()
          ? 'crm-sync is running with a different CONNECTIONS_KEY than the one they were saved with: put that key back, or enter this connection again.'
          : 'crm-sync has no usable key (see above).',
      ),
    );
    box.appendChild(el('span', 'conn-msg-detail', detail));
    return box;
  }
  if (c.status === 'degraded') {
    const words = checkWords(c.code, def.name);
    const box = el('div', 'conn-alert warn');
    box.appendChild(el('span', '', words || upperFirst(detail) || 'It does not work right now.'));
    if (words) box.appendChild(el('span', 'conn-msg-detail', detail));
    if (def.name === 'record_crm' && c.code === 'scope_missing' && !c.read_only && can('admin')) box.appendChild(reconnectButton(c));
    return box;
  }
  const fallback = c.status === 'connected' ? 'Working.' : 'Not set up yet.';
  return el('p', 'conn-detail', detail ? upperFirst(detail) + (/[.!]$/.test(detail) ? '' : '.') : fallback);
}

/**
 * The facts under the state: where it was set, when last checked, the settings (without secrets).
 * @param {CardDef} def
 * @param {ConnectionView} c
 */
function facts(def, c) {
  const dl = el('dl', 'conn-facts');
  /** @param {string} label @param {string | Node} value @param {string} [className] */
  const row = (label, value, className) => {
    dl.appendChild(el('dt', '', label));
    const dd = el('dd', className || '');
    if (value instanceof Node) dd.appendChild(value);
    else dd.textContent = value;
    dl.appendChild(dd);
  };
  if (c.source === 'environment') row('Set in', 'environment (read-only)');
  else if (c.source === 'console') row('Set in', 'console, by ' + show(c.updated_by) + ' at ' + fmtTime(c.updated_at));
  else row('Set in', 'not set');
  row('Last checked', c.checked_at ? fmtTime(c.checked_at) : 'never');
  const s = c.settings || {};
  if (c.settings && def.name === 'appointment_crm' && s.kind === 'salesforce') {
    row('Kind', 'Salesforce org (' + (s.preset === 'improveit360-lightning' ? 'improveit 360 Lightning' : 'improveit 360 classic') + ' names)');
    row('Sign in at', show(s.login_url), 'mono');
    if (s.instance_url) row('Instance', show(s.instance_url), 'mono');
    row('Consumer Key', show(s.client_id), 'mono');
    row('Pushes', s.pushes === 'crm-sync' ? 'crm-sync pushes files, sales and Sold' : 'the service pushes; crm-sync checks');
    const usage = s.api_usage;
    if (usage && typeof usage.used === 'number') row('API requests today', usage.used.toLocaleString() + ' of ' + Number(usage.max).toLocaleString());
  } else if (c.settings && (def.name === 'service' || def.name === 'appointment_crm')) {
    row('Address', show(s.base_url), 'mono');
    const last4 = def.name === 'service' ? s.token_last4 : s.api_key_last4;
    row(def.name === 'service' ? 'Token' : 'API key', last4 ? 'ending in ' + ending(last4) : 'set (too short to show its end)');
  }
  if (c.settings && def.name === 'record_crm') {
    const dc = s.data_centre ? show(s.data_centre) : null;
    row('Data centre', dc ? (REGIONS[dc] || dc) + ' (' + show(s.accounts_url).replace(/^https?:\/\//, '') + ')' : 'other: ' + show(s.accounts_url));
    row('API domain', show(s.api_domain), 'mono');
    row('Client ID', show(s.client_id), 'mono');
    if (s.client_secret_last4) row('Client secret', 'ending in ' + ending(s.client_secret_last4));
  }
  if (c.settings && def.name === 'webhooks') {
    /** @type {Record<string, Array<string | null>>} */
    const last4 = s.secrets_last4 || {};
    const lines = el('span', 'conn-lines');
    for (const w of WEBHOOKS) {
      const list = Array.isArray(last4[w.key]) ? last4[w.key] : [];
      lines.appendChild(el('span', '', w.short + ': ' + (list.length ? list.map((x) => ending(x) || '(short secret)').join(', ') : 'none')));
    }
    row('Secrets', lines);
  }
  return dl;
}

/**
 * The badge, the state's words, where it was set and the settings (without secrets); drawn again on refresh.
 * @param {CardsScreen} screen
 * @param {CardDef} def
 */
export function updateState(screen, def) {
  const section = document.getElementById('conn-' + def.path);
  if (!section) return;
  const c = screen.itemOf(def.name);
  const status = show(c.status);
  section.className = 'card conn-card conn-' + status;
  const badge = /** @type {HTMLElement} */ ($('conn-' + def.path + '-status'));
  badge.className = 'badge c-' + status;
  badge.textContent = STATUS_LABELS[status] || status;
  const test = /** @type {HTMLButtonElement} */ ($('conn-' + def.path + '-test'));
  test.disabled = !c.source;
  if (!c.source) test.title = 'Nothing to test yet';
  const state = /** @type {HTMLElement} */ ($('conn-' + def.path + '-state'));
  state.replaceChildren(stateWords(screen, def, c), facts(def, c));
}
