// @ts-check
/**
 * The appointment CRM as a Salesforce org (improveit 360) on the Connections screen: Connect sends this tab to the
 * org's consent page (`PUT /api/connections/appointment-crm/salesforce` answers where), which sends it back to
 * `#connections`; then the table of needs (`GET …/schema`), each with a drop-down of the org's fitting objects or
 * fields, saved through `PUT …/names` (checked against the org first: a name it lacks saves nothing).
 */
import { api, describe } from './api.js';
import { field, showFailure } from './connection-widgets.js';
import { formShell, removeButton, submitButton } from './connection-form-shell.js';
import { can, el, show } from './dom.js';

/** @typedef {import('./connection-form-shell.js').Screen} Screen */
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

/** @param {unknown} v */
const str = (v) => (v === null || v === undefined ? '' : String(v));

/** A field of an object as `GET …/fields` gives it. @typedef {{ name: string, label: string, type: string, referenceTo: string[], relationshipName: string | null }} OrgField */

/** @type {Map<string, Promise<OrgField[]>>} */
const fieldsOf = new Map();
/**
 * An object's fields (describe), asked once per screen.
 * @param {string} object
 * @returns {Promise<OrgField[]>}
 */
function orgFields(object) {
  if (!fieldsOf.has(object))
    fieldsOf.set(
      object,
      api('GET', '/api/connections/appointment-crm/fields?object=' + encodeURIComponent(object)).then((/** @type {any} */ res) => (res && res.fields) || []),
    );
  return /** @type {Promise<OrgField[]>} */ (fieldsOf.get(object));
}

/**
 * The picker of a field path: one drop-down per step, the fields of the step's object that fit and its lookups
 * ("Prospect →"); picking a lookup adds the next step, the fields of the object it reaches (`GET …/fields`).
 * @param {any} need the need's report: name, types, optional, options, lookups
 * @returns {{ box: HTMLElement, value: () => string }}
 */
function pathPicker(need) {
  const box = el('span', 'sf-path');
  /** @type {HTMLSelectElement[]} */
  const steps = [];
  const types = /** @type {string[]} */ (need.types || []);
  /**
   * A step's drop-down.
   * @param {number} at
   * @param {Array<{ name: string, label: string }>} fields fitting fields
   * @param {Array<{ relationshipName: string, referenceTo: string, label: string }>} lookups
   * @param {string} current the path's step here ('' none)
   */
  const step = (at, fields, lookups, current) => {
    const select = /** @type {HTMLSelectElement} */ (el('select', 'mono'));
    select.id = 'conn-need-' + str(need.need) + (at ? '-' + at : '');
    select.setAttribute('aria-label', str(need.label) + (at ? ' (step ' + (at + 1) + ')' : ''));
    /** @param {string} value @param {string} words */
    const option = (value, words) => {
      const o = /** @type {HTMLOptionElement} */ (el('option', '', words));
      o.value = value;
      select.appendChild(o);
    };
    if (at === 0 && (need.optional || !need.name)) option('', '(unused)');
    if (at > 0) option('', '(pick a field)');
    const names = fields.map((f) => f.name);
    // A name the org was not asked about (a sales need while the service pushes) is shown as it is.
    const unchecked = need.status === 'unused' || at > 0;
    if (current && !current.endsWith('.') && !names.includes(current)) option(current, unchecked ? current : current + ' (not in the org)');
    for (const f of fields) option(f.name, f.name);
    for (const l of lookups) option(l.relationshipName + '.', l.relationshipName + ' → ' + l.referenceTo);
    select.value = current;
    select.addEventListener('change', () => grow(at, lookups));
    steps.splice(at);
    steps.push(select);
    box.appendChild(select);
    return select;
  };
  /**
   * After step `at` changed: drop the steps after it; a lookup picked adds the step of the object it reaches.
   * @param {number} at
   * @param {Array<{ relationshipName: string, referenceTo: string }>} lookups
   * @param {string[]} [rest] the remaining steps of a path being shown
   * @returns {Promise<void>}
   */
  const grow = (at, lookups, rest = []) => {
    for (const later of steps.splice(at + 1)) later.remove();
    const picked = steps[at].value;
    if (!picked.endsWith('.')) return Promise.resolve();
    const lookup = lookups.find((l) => l.relationshipName + '.' === picked);
    if (!lookup || steps.length > 5) return Promise.resolve();
    return orgFields(lookup.referenceTo).then((fields) => extend(fields));
    /** @param {OrgField[]} fields @returns {Promise<void> | void} */
    function extend(fields) {
      const fit = fields.filter((f) => types.includes(f.type));
      const next = fields
        .filter((f) => f.type === 'reference' && f.relationshipName && f.referenceTo.length === 1)
        .map((f) => ({ relationshipName: str(f.relationshipName), referenceTo: f.referenceTo[0], label: f.label }));
      const [head, ...tail] = rest;
      const nextCurrent = head === undefined ? '' : tail.length ? head + '.' : head;
      step(at + 1, fit, next, nextCurrent);
      if (tail.length) return grow(at + 1, next, tail);
      return undefined;
    }
  };
  const parts = str(need.name).split('.');
  const first = parts.length > 1 ? parts[0] + '.' : parts[0];
  step(0, need.options || [], need.lookups || [], first);
  if (parts.length > 1) void grow(0, need.lookups || [], parts.slice(1));
  return {
    box,
    value: () =>
      steps
        .map((s) => s.value)
        .join('')
        .replace(/\.$/, ''),
  };
}

/**
 * The table of needs: every object and field path crm-sync uses, its name in the org, and whether the org has it.
 * A need the org lacks whose preset name no public source confirms is shown with its picker marked, to pick the
 * org's own.
 * @param {Screen} screen
 */
function needsTable(screen) {
  const box = el('div', 'sf-needs');
  box.id = 'conn-appointment-crm-needs';
  box.appendChild(el('h4', '', 'What crm-sync uses in the org'));
  box.appendChild(
    el(
      'p',
      'conn-hint',
      'Each field is a path from the appointment: its own field, or one reached through lookups (pick "… →" to go to the object a lookup reaches).',
    ),
  );
  const body = el('div', '', 'Reading the org…');
  box.appendChild(body);
  api('GET', '/api/connections/appointment-crm/schema').then(
    /** @param {any} schema */
    (schema) => {
      body.replaceChildren();
      const table = el('table', 'sf-needs-table');
      const head = el('tr');
      for (const words of ['Need', 'Name or path in the org', 'State']) head.appendChild(el('th', '', words));
      table.appendChild(head);
      /** @type {Map<string, () => string>} */
      const values = new Map();
      for (const need of schema.needs || []) {
        const problem = need.status === 'missing' || need.status === 'wrong_type' || need.status === 'absent';
        const open = problem && need.confirmed === false;
        const row = el('tr', 'need-' + str(need.status) + (open ? ' need-open' : ''));
        row.dataset.need = str(need.need);
        row.appendChild(el('td', '', str(need.label)));
        const cell = el('td');
        if (need.types && need.types.length) {
          const picker = pathPicker(need);
          cell.appendChild(picker.box);
          values.set(str(need.need), picker.value);
        } else {
          const picker = /** @type {HTMLSelectElement} */ (el('select', 'mono'));
          picker.id = 'conn-need-' + str(need.need);
          const names = [...new Set([str(need.name), ...(schema.objects || []).map((/** @type {any} */ o) => str(o.name))])];
          for (const name of names) {
            const option = /** @type {HTMLOptionElement} */ (el('option', '', name || '(unused)'));
            option.value = name;
            picker.appendChild(option);
          }
          picker.value = str(need.name);
          cell.appendChild(picker);
          values.set(str(need.need), () => picker.value);
        }
        row.appendChild(cell);
        const words =
          { ok: 'found', missing: 'missing', wrong_type: 'wrong type', unused: 'not used', absent: 'not in this org' }[str(need.status)] || str(need.status);
        const state = el('td');
        const tone = need.status === 'ok' ? 'connected' : need.status === 'unused' || need.status === 'absent' ? 'not_configured' : 'degraded';
        state.appendChild(el('span', 'badge c-' + tone, words));
        if (need.detail) state.appendChild(el('span', 'conn-hint', ' ' + str(need.detail)));
        if (open) state.appendChild(el('span', 'conn-hint need-unconfirmed', ' No public source confirms the preset’s name: pick the org’s own.'));
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
          const picked = values.get(str(need.need));
          if (picked && picked() !== str(need.name)) names[str(need.need)] = picked();
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
