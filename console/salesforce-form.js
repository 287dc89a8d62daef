// @ts-check
/**
 * The appointment CRM as a Salesforce org (improveit 360) on the Connections screen: Connect sends this tab to the
 * org's consent page (`PUT /api/connections/appointment-crm/salesforce` answers where), which sends it back to
 * `#connections`; then the table of needs (`GET …/schema`), each with a drop-down of the org's fitting objects or
 * fields, saved through `PUT …/names` (checked against the org first: a name it lacks saves nothing).
 */
import { api, describe } from './api.js';
import { field, showFailure } from './connection-widgets.js';
import { formShell, removeButton, submitButton } from './connection-forms.js';
import { can, el, show } from './dom.js';

/** @typedef {import('./connection-forms.js').Screen} Screen */
/** @typedef {import('./connection-words.js').CardDef} CardDef */
/** @typedef {import('./connection-words.js').ConnectionView} ConnectionView */

/** @type {Array<[string, string]>} */
const LOGIN_HOSTS = [
  ['https://login.salesforce.com', 'Production (login.salesforce.com)'],
  ['https://test.salesforce.com', 'Sandbox (test.salesforce.com)'],
];

/**
 * A labelled drop-down.
 * @param {string} id
 * @param {string} label
 * @param {Array<[string, string]>} options value and words
 * @param {string} value
 */
function select(id, label, options, value) {
  const wrap = el('label', 'conn-field');
  wrap.appendChild(el('span', 'conn-label', label));
  const input = /** @type {HTMLSelectElement} */ (el('select'));
  input.id = id;
  for (const [v, words] of options) {
    const option = /** @type {HTMLOptionElement} */ (el('option', '', words));
    option.value = v;
    input.appendChild(option);
  }
  input.value = value;
  wrap.appendChild(input);
  return { wrap, input };
}

/**
 * Connect (or reconnect) a Salesforce org.
 * @param {Screen} screen
 * @param {CardDef} def
 * @param {ConnectionView} c
 */
export function salesforceForm(screen, def, c) {
  const s = c.settings || {};
  const shell = formShell(screen, def, s.kind === 'salesforce' ? 'Reconnect the Salesforce org' : 'Connect a Salesforce org (improveit 360)');
  const known = LOGIN_HOSTS.some(([url]) => url === s.login_url);
  const host = select(
    shell.prefix + '-login-host',
    'Sign in at',
    [...LOGIN_HOSTS, ['custom', 'My Domain (enter it)']],
    s.login_url && !known ? 'custom' : show(s.login_url || LOGIN_HOSTS[0][0]),
  );
  const myDomain = field(shell.prefix, 'login_url', 'My Domain', {
    value: !known && s.login_url ? show(s.login_url) : '',
    placeholder: 'https://acme.my.salesforce.com',
    mono: true,
    wide: true,
  });
  myDomain.hidden = host.input.value !== 'custom';
  host.input.addEventListener('change', () => (myDomain.hidden = host.input.value !== 'custom'));
  const clientId = field(shell.prefix, 'client_id', 'Consumer Key', { value: s.client_id ? show(s.client_id) : '', mono: true, wide: true });
  const secret = field(shell.prefix, 'client_secret', 'Consumer Secret', {
    type: 'password',
    placeholder: s.client_secret_last4 ? 'the saved one ends in …' + s.client_secret_last4 + '; leave empty to keep it' : '',
    wide: true,
  });
  const preset = select(
    shell.prefix + '-preset',
    'Names',
    [
      ['improveit360-classic', 'improveit 360 (classic)'],
      ['improveit360-lightning', 'improveit 360 (Lightning)'],
    ],
    show(s.preset || 'improveit360-classic'),
  );
  const pushes = select(
    shell.prefix + '-pushes',
    'Who pushes files, sales and Sold',
    [
      ['service', 'The service (crm-sync checks)'],
      ['crm-sync', 'crm-sync'],
    ],
    show(s.pushes || 'service'),
  );
  for (const part of [host.wrap, myDomain, clientId, secret, preset.wrap, pushes.wrap]) shell.fields.appendChild(part);
  if (s.redirect_uri) shell.fields.appendChild(el('p', 'conn-hint', 'Callback URL of the Connected App: ' + show(s.redirect_uri)));
  const button = submitButton(screen, shell.prefix, 'Connect…');
  shell.actions.appendChild(button);
  shell.actions.appendChild(el('span', 'grow'));
  shell.actions.appendChild(removeButton(screen, def, c, 'Disconnect…', 'Disconnect the org? crm-sync revokes its refresh token and stops calling it.'));
  shell.form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    shell.errors.clear();
    const loginUrl = host.input.value === 'custom' ? myDomain.input.value.trim() : host.input.value;
    /** @type {Record<string, string>} */
    const body = { login_url: loginUrl, client_id: clientId.input.value.trim(), preset: preset.input.value, pushes: pushes.input.value };
    if (secret.input.value.trim()) body.client_secret = secret.input.value.trim();
    if (!body.client_id) return void shell.errors.field('client_id', 'Enter the Consumer Key.');
    button.disabled = true;
    api('PUT', '/api/connections/appointment-crm/salesforce', body).then(
      /** @param {{ authorize_url?: string } | null} res */
      (res) => {
        const url = res && res.authorize_url ? show(res.authorize_url) : '';
        if (!/^https?:\/\//.test(url)) throw new Error('The daemon did not answer where to sign in at Salesforce.');
        window.location.assign(url);
      },
      (err) => {
        button.disabled = false;
        showFailure(shell.errors, err, def.name);
      },
    );
  });
  const box = el('div', 'sf-connect');
  box.appendChild(shell.form);
  // The table of needs costs the org's API allowance to read: for admins only, as its route is.
  if (s.kind === 'salesforce' && can('admin')) box.appendChild(needsTable(screen));
  return box;
}

/**
 * The table of needs: every object and field crm-sync uses, its name in the org, and whether the org has it.
 * @param {Screen} screen
 */
function needsTable(screen) {
  const box = el('div', 'sf-needs');
  box.id = 'conn-appointment-crm-needs';
  box.appendChild(el('h4', '', 'What crm-sync uses in the org'));
  const body = el('div', '', 'Reading the org…');
  box.appendChild(body);
  api('GET', '/api/connections/appointment-crm/schema').then(
    /** @param {any} schema */
    (schema) => {
      body.replaceChildren();
      const table = el('table', 'sf-needs-table');
      const head = el('tr');
      for (const words of ['Need', 'Name in the org', 'State']) head.appendChild(el('th', '', words));
      table.appendChild(head);
      /** @type {Map<string, HTMLSelectElement>} */
      const pickers = new Map();
      for (const need of schema.needs || []) {
        const row = el('tr', 'need-' + show(need.status));
        row.dataset.need = show(need.need);
        row.appendChild(el('td', '', show(need.label)));
        const cell = el('td');
        const picker = /** @type {HTMLSelectElement} */ (el('select', 'mono'));
        picker.id = 'conn-need-' + show(need.need);
        const choices =
          need.options && need.options.length
            ? need.options.map((/** @type {any} */ o) => o.name)
            : (schema.objects || []).map((/** @type {any} */ o) => o.name);
        const names = [...new Set([show(need.name || ''), ...choices.map(show)])];
        for (const name of names) {
          const option = /** @type {HTMLOptionElement} */ (el('option', '', name || '(unused)'));
          option.value = name;
          picker.appendChild(option);
        }
        picker.value = show(need.name || '');
        pickers.set(show(need.need), picker);
        cell.appendChild(picker);
        row.appendChild(cell);
        const words = { ok: 'found', missing: 'missing', wrong_type: 'wrong type', unused: 'not used' }[show(need.status)] || show(need.status);
        const state = el('td');
        state.appendChild(el('span', 'badge c-' + (need.status === 'ok' ? 'connected' : need.status === 'unused' ? 'not_configured' : 'degraded'), words));
        if (need.detail) state.appendChild(el('span', 'conn-hint', ' ' + show(need.detail)));
        row.appendChild(state);
        table.appendChild(row);
      }
      body.appendChild(table);
      const message = el('p', 'conn-form-message');
      const save = /** @type {HTMLButtonElement} */ (el('button', 'primary', 'Check and save the names'));
      save.type = 'button';
      save.id = 'conn-needs-save';
      save.addEventListener('click', () => {
        /** @type {Record<string, string>} */
        const names = {};
        for (const need of schema.needs || []) {
          const picked = pickers.get(show(need.need));
          if (picked && picked.value !== show(need.name || '')) names[show(need.need)] = picked.value;
        }
        save.disabled = true;
        message.textContent = 'Checking against the org…';
        api('PUT', '/api/connections/appointment-crm/names', { names }).then(
          () => screen.redraw(true),
          (/** @type {unknown} */ err) => {
            save.disabled = false;
            message.textContent = 'Not saved: ' + describe(err);
          },
        );
      });
      body.appendChild(save);
      body.appendChild(message);
    },
    (/** @type {unknown} */ err) => {
      body.textContent = 'The org could not be read: ' + describe(err);
    },
  );
  return box;
}
