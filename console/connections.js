/**
 * The Connections screen (`GET /api/connections`): a card per connection (the service, the appointment CRM, Zoho CRM,
 * the webhooks) with its state, where it was set, its last check, a Test button (operator) and the form that sets it
 * (admin; none for a connection set in the environment). New settings are tested by the daemon before it saves them;
 * a refusal is shown next to the form in plain words, the daemon's own text below it. Zoho is connected through its
 * consent page: Connect sends this tab there, and Zoho sends it back to `#connections`.
 * Secrets are never shown: the API answers their last 4 characters at most, and inputs for new ones are password fields.
 */
import { ApiError, AuthError, api, describe } from './api.js';
import { $, can, confirmInline, el, fmtTime, inlineMessage, show } from './dom.js';

const CONNECTING_KEY = 'crm-sync.zoho-connect-started';
const MIN_WEBHOOK_SECRET = 16;

const CARDS = [
  {
    name: 'service',
    path: 'service',
    title: 'Service',
    what: 'The drawing and proposal service: crm-sync reads projects, drawings and proposals from its API.',
    env: 'SERVICE_API_BASE_URL and SERVICE_API_TOKEN',
  },
  {
    name: 'appointment_crm',
    path: 'appointment-crm',
    title: 'Appointment CRM',
    what: 'Appointments get their drawings, proposal PDFs and status here. Leave it unset if you do not use one.',
    env: 'APPOINTMENT_CRM_BASE_URL and APPOINTMENT_CRM_API_KEY',
  },
  {
    name: 'record_crm',
    path: 'record-crm',
    title: 'Zoho CRM',
    what: 'Deals, quotes, leads and contacts get the proposal PDFs. Leave it unset if you do not use Zoho.',
    env: 'RECORD_CRM_API_DOMAIN, RECORD_CRM_CLIENT_ID, RECORD_CRM_CLIENT_SECRET and RECORD_CRM_REFRESH_TOKEN',
  },
  {
    name: 'webhooks',
    path: 'webhooks',
    title: 'Webhooks',
    what: 'The service tells crm-sync about new drawings and exports by calling these addresses, signed with a secret you both know.',
    env: 'WEBHOOK_SECRETS_EVENTS, WEBHOOK_SECRETS_APPOINTMENT_PROMPT and WEBHOOK_SECRETS_RECORD_PROMPT',
  },
];

const WEBHOOKS = [
  { key: 'events', title: 'Events', short: 'Events', what: 'new drawings, proposals and status changes', required: true },
  { key: 'appointment_prompt', title: 'Appointment CRM export prompt', short: 'Appointment prompt', what: 'the “send to the appointment CRM?” answer' },
  { key: 'record_prompt', title: 'Zoho CRM export prompt', short: 'Zoho prompt', what: 'the “attach to Zoho CRM?” answer' },
];

const REGIONS = { US: 'United States', EU: 'Europe', IN: 'India', AU: 'Australia', JP: 'Japan', CA: 'Canada', SA: 'Saudi Arabia', CN: 'China' };

const STATUS_LABELS = { connected: 'connected', degraded: 'degraded', not_configured: 'not configured' };

/** The daemon's field names, longest first (so `client_secret` is found before any shorter name inside a message). */
const FIELD_NAMES = ['appointment_prompt', 'record_prompt', 'client_secret', 'accounts_url', 'client_id', 'base_url', 'api_key', 'events', 'token'];

/** class-validator's messages in words (the daemon's text is kept when none fits). */
const FRIENDLY = [
  [/^base_url must be an http\(s\) URL/, 'Enter the full address, starting with https (or http).'],
  [/^base_url must end in \/v1/, 'The service’s API address ends in /v1.'],
  [/^token is required/, 'Enter the API token.'],
  [/^api_key is required/, 'Enter the API key.'],
  [/^accounts_url must be/, 'Enter the accounts server’s full address, starting with https.'],
  [/^client_id (is required|must be longer)/, 'Enter the Client ID from Zoho’s API console.'],
  [/^client_secret (is required|must be longer)/, 'Enter the Client Secret from Zoho’s API console.'],
  [/must be shorter than or equal to (\d+) characters/, 'That is too long: at most $1 characters.'],
  [/each secret must be at least 16 characters/, 'A secret needs at least 16 characters.'],
  [/no current secret ends in/, 'A secret you kept was changed meanwhile: reload the page and try again.'],
];

const upperFirst = (text) => (text ? text.charAt(0).toUpperCase() + text.slice(1) : text);
const ending = (last4) => (last4 ? '…' + show(last4) : null);

function friendly(message) {
  for (const [pattern, words] of FRIENDLY) {
    const match = pattern.exec(message);
    if (match) return words.replace('$1', match[1] || '');
  }
  return upperFirst(message);
}

/** What a failed check means, for someone who did not write crm-sync: `who` is "the service", `secret` "token". */
function explain(detail, who, secret) {
  const d = String(detail || '');
  if (/cannot be read/.test(d)) return 'The saved secrets cannot be read with the key crm-sync is running with.';
  if (who === 'Zoho' && /HTTP 40[13]\b|unauthorized|invalid_client|invalid_code|SCOPE_MISMATCH|refused/i.test(d)) {
    return 'Zoho no longer accepts crm-sync’s access (the consent was revoked, or the client changed in Zoho’s API console). Zoho CRM needs connecting again.';
  }
  if (/HTTP 40[13]\b|unauthorized|invalid_client|invalid_code|Access Denied/i.test(d)) {
    return upperFirst(who) + ' refused the ' + secret + '. Check that you copied all of it, and that it has not been revoked or replaced.';
  }
  if (/HTTP 404\b|not_found/.test(d)) return 'Nothing that looks like ' + who + ' answered at that address. Check the address.';
  if (/HTTP 429\b|rate_limited/.test(d)) return upperFirst(who) + ' is asking crm-sync to slow down. Wait a minute and try again.';
  if (/HTTP 5\d\d\b|unavailable/.test(d)) return upperFirst(who) + ' answered with an error of its own. Try again in a few minutes.';
  if (/timeout|no answer within/.test(d)) return 'That address did not answer in time. Check it, and that crm-sync can reach it from where it runs.';
  if (/network|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|certificate|CERT_/i.test(d)) {
    return 'crm-sync could not reach that address. Check it for typos, and that the server is up.';
  }
  if (/not JSON|invalid_response/.test(d)) return 'Something answered at that address, but not ' + who + '’s API. Check the address.';
  if (/not configured/.test(d)) return 'Nothing is set yet.';
  return null;
}

const WHO = {
  service: ['the service', 'token'],
  appointment_crm: ['the appointment CRM', 'API key'],
  record_crm: ['Zoho', 'access'],
  webhooks: ['crm-sync', 'secret'],
};

/** A message box: the plain words, the daemon's own text under them when it says more. */
function messageBox(kind, words, detail) {
  const box = el('div', 'conn-msg ' + kind);
  box.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  box.appendChild(el('span', 'conn-msg-words', words));
  if (detail && detail !== words) box.appendChild(el('span', 'conn-msg-detail', detail));
  return box;
}

/** Copies text; resolves true when it worked. */
function copyText(text) {
  const fallback = () => {
    const area = el('textarea', 'offscreen');
    area.value = text;
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  };
  if (window.navigator.clipboard && window.isSecureContext) return window.navigator.clipboard.writeText(text).then(() => true, fallback);
  return Promise.resolve(fallback());
}

/** A value to copy elsewhere (wrapped, selected whole on a click) with a Copy button. */
function copyRow(id, value, label) {
  const row = el('div', 'copy-row');
  // Lines may break after a slash, not inside a word.
  const text = el('code', 'copy-value');
  value.split(/(?<=\/)/).forEach((part, i) => {
    if (i) text.appendChild(el('wbr'));
    text.appendChild(document.createTextNode(part));
  });
  text.id = id;
  text.title = label;
  const button = el('button', 'small', 'Copy');
  button.type = 'button';
  button.id = id + '-copy';
  button.setAttribute('aria-label', 'Copy the ' + label);
  button.addEventListener('click', () =>
    copyText(value).then((ok) => inlineMessage(button, ok ? 'ok' : 'info', ok ? 'Copied.' : 'Select it and press Ctrl+C to copy.')),
  );
  row.appendChild(text);
  row.appendChild(button);
  return row;
}

/** A labelled input with its error line; returns the label (with `.input`). */
function field(prefix, name, label, options = {}) {
  const wrap = el('label', 'conn-field' + (options.wide ? ' wide' : ''));
  wrap.appendChild(el('span', 'conn-label', label));
  const input = el('input', options.mono ? 'mono' : '');
  input.id = prefix + '-' + name;
  input.name = name;
  input.type = options.type || 'text';
  input.autocomplete = options.type === 'password' ? 'new-password' : 'off';
  input.spellcheck = false;
  if (options.value) input.value = options.value;
  if (options.placeholder) input.placeholder = options.placeholder;
  wrap.appendChild(input);
  if (options.hint) wrap.appendChild(el('span', 'conn-hint', options.hint));
  const error = el('span', 'field-error');
  error.id = prefix + '-' + name + '-error';
  wrap.appendChild(error);
  wrap.input = input;
  return wrap;
}

/** The form's per-field errors and its message: `field` marks one field, `say` writes under the form. */
function formErrors(form, prefix, message) {
  const byId = (id) => form.querySelector('#' + window.CSS.escape(id));
  return {
    clear() {
      for (const e of form.querySelectorAll('.field-error')) e.textContent = '';
      for (const i of form.querySelectorAll('[aria-invalid]')) i.removeAttribute('aria-invalid');
      message.replaceChildren();
    },
    field(name, text) {
      const box = byId(prefix + '-' + name + '-error');
      const input = byId(prefix + '-' + name);
      if (!box || !input) return false;
      box.textContent = box.textContent ? box.textContent + ' ' + text : text;
      input.setAttribute('aria-invalid', 'true');
      return true;
    },
    say(kind, words, detail) {
      message.replaceChildren(messageBox(kind, words, detail));
    },
  };
}

/**
 * Shows a refused save: class-validator's messages next to their fields, a failed test (422) or a refusal (409, 403)
 * under the form.
 */
function showFailure(errors, err, def) {
  if (err instanceof AuthError) return;
  const data = err instanceof ApiError && err.data && typeof err.data === 'object' ? err.data : {};
  if (err.status === 400) {
    const messages = Array.isArray(data.message) ? data.message.map(show) : [err.message];
    const loose = [];
    for (const m of messages) {
      const name = FIELD_NAMES.find((f) => m.indexOf(f) >= 0);
      if (!(name && errors.field(name, friendly(m)))) loose.push(friendly(m));
    }
    if (loose.length) errors.say('error', 'Not saved: ' + loose.join(' '));
    else errors.say('error', 'Not saved: check the fields marked in red.');
    return;
  }
  if (err.status === 422 && !/^not saved: /.test(err.message)) {
    // Refused before any test, naming its field ("client_secret is required for a new client").
    const name = FIELD_NAMES.find((f) => err.message.indexOf(f) >= 0);
    if (name && errors.field(name, friendly(err.message))) {
      errors.say('error', 'Not saved: check the fields marked in red.');
      return;
    }
  }
  if (err.status === 422) {
    const detail = data.detail ? show(data.detail) : err.message.replace(/^not saved: /, '');
    const [who, secret] = WHO[def.name];
    const words = explain(detail, who, secret);
    errors.say('error', 'Not saved. ' + (words || upperFirst(detail)), words ? detail : null);
    return;
  }
  if (err.status === 409) {
    errors.say('error', 'Not saved: ' + err.message + '.');
    return;
  }
  errors.say('error', 'Not saved: ' + describe(err));
}

export function initConnections() {
  const body = $('connections-body');
  let gen = 0;
  let data = null;
  /** Messages to show in a card's form area at its next drawing (after a save, which draws the screen again). */
  const flash = {};

  function showScreen(_arg, refresh) {
    const mine = ++gen;
    // Refreshing keeps the forms (someone may be typing): only the states are drawn again.
    const full = !refresh || !body.querySelector('.conn-card');
    if (!refresh) body.replaceChildren(el('p', 'muted loading', 'Loading…'));
    return api('GET', '/api/connections').then(
      (answer) => {
        if (mine !== gen) return;
        data = answer || {};
        if (full) render();
        else for (const def of CARDS) updateState(def);
      },
      (err) => {
        if (mine !== gen || err instanceof AuthError) return;
        const missing = err instanceof ApiError && err.routeMissing;
        body.replaceChildren(el('div', 'unavailable ' + (missing ? 'info' : 'error'), 'Connections ' + (missing ? 'are ' : 'failed: ') + describe(err)));
      },
    );
  }

  const itemOf = (name) => (Array.isArray(data.items) ? data.items.find((i) => i.name === name) : null) || { name, status: 'not_configured', source: null };
  const keyOk = () => !data.key || data.key.ok !== false;
  const unreadable = (c) => c.status === 'degraded' && /cannot be read/.test(show(c.detail));

  function render() {
    body.replaceChildren();
    noteZohoReturn();
    banners();
    // An admin's cards are full width, the state beside the form; others see the states two by two.
    const grid = el('div', 'conn-cards' + (can('admin') ? ' editable' : ''));
    grid.id = 'connections-cards';
    for (const def of CARDS) grid.appendChild(card(def));
    body.appendChild(grid);
    for (const def of CARDS) updateState(def);
  }

  /** Back from Zoho's consent: says so once. */
  function noteZohoReturn() {
    const started = Number(sessionStorage.getItem(CONNECTING_KEY) || 0);
    if (!started) return;
    sessionStorage.removeItem(CONNECTING_KEY);
    const zoho = itemOf('record_crm');
    if (zoho.source === 'console' && zoho.updated_at && Date.parse(zoho.updated_at) >= started - 60000) {
      flash.record_crm = ['ok', 'Zoho CRM is connected. crm-sync attaches PDFs with the access you granted.'];
    }
  }

  function banners() {
    const key = data.key || {};
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
    const bad = CARDS.filter((def) => unreadable(itemOf(def.name)));
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

  function card(def) {
    const c = itemOf(def.name);
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
    const test = el('button', 'small', 'Test connection');
    test.type = 'button';
    test.id = 'conn-' + def.path + '-test';
    test.title = 'One harmless call with the settings in use (POST /api/connections/' + def.path + '/test)';
    test.addEventListener('click', () => runTest(def, test));
    testRow.appendChild(test);
    main.appendChild(testRow);
    if (def.name === 'webhooks') main.appendChild(webhookAddresses(c));
    section.appendChild(main);

    const side = el('div', 'conn-side');
    if (c.read_only) {
      side.appendChild(
        el('p', 'conn-readonly', 'Set in crm-sync’s environment (' + def.env + '). Change it there and restart crm-sync, or unset it to manage it here.'),
      );
    } else {
      const form = { service: serviceForm, appointment_crm: appointmentForm, record_crm: zohoForm, webhooks: webhooksForm }[def.name](def, c);
      const wrap = el('div', 'conn-admin');
      wrap.dataset.role = 'admin';
      wrap.hidden = !can('admin');
      wrap.appendChild(form);
      side.appendChild(wrap);
      if (!can('admin')) side.appendChild(el('p', 'conn-readonly', 'An admin can change this connection.'));
    }
    section.appendChild(side);
    return section;
  }

  /** Where the service must send each webhook, to copy into its settings; a warning while PUBLIC_URL is unset. */
  function webhookAddresses(c) {
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

  /** The badge, the state's words, where it was set and the settings (without secrets); drawn again on refresh. */
  function updateState(def) {
    const section = $('conn-' + def.path);
    if (!section) return;
    const c = itemOf(def.name);
    const status = show(c.status);
    section.className = 'card conn-card conn-' + status;
    const badge = $('conn-' + def.path + '-status');
    badge.className = 'badge c-' + status;
    badge.textContent = STATUS_LABELS[status] || status;
    const test = $('conn-' + def.path + '-test');
    test.disabled = !c.source;
    if (!c.source) test.title = 'Nothing to test yet';

    const state = $('conn-' + def.path + '-state');
    state.replaceChildren();
    const detail = c.detail ? show(c.detail) : '';
    if (unreadable(c)) {
      const box = el('div', 'conn-alert error');
      box.setAttribute('role', 'alert');
      box.appendChild(el('strong', '', 'The saved secrets cannot be read. '));
      box.appendChild(
        document.createTextNode(
          keyOk()
            ? 'crm-sync is running with a different CONNECTIONS_KEY than the one they were saved with: put that key back, or enter this connection again.'
            : 'crm-sync has no usable key (see above).',
        ),
      );
      box.appendChild(el('span', 'conn-msg-detail', detail));
      state.appendChild(box);
    } else if (c.status === 'degraded') {
      const [who, secret] = WHO[def.name];
      const words = explain(detail, who, secret);
      const box = el('div', 'conn-alert warn');
      box.appendChild(el('span', '', words || upperFirst(detail) || 'It does not work right now.'));
      if (words) box.appendChild(el('span', 'conn-msg-detail', detail));
      state.appendChild(box);
    } else {
      const fallback = c.status === 'connected' ? 'Working.' : 'Not set up yet.';
      state.appendChild(el('p', 'conn-detail', detail ? upperFirst(detail) + (/[.!]$/.test(detail) ? '' : '.') : fallback));
    }

    const dl = el('dl', 'conn-facts');
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
    if (c.settings && (def.name === 'service' || def.name === 'appointment_crm')) {
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
      const last4 = s.secrets_last4 || {};
      const lines = el('span', 'conn-lines');
      for (const w of WEBHOOKS) {
        const list = Array.isArray(last4[w.key]) ? last4[w.key] : [];
        lines.appendChild(el('span', '', w.short + ': ' + (list.length ? list.map((x) => ending(x) || '(short secret)').join(', ') : 'none')));
      }
      row('Secrets', lines);
    }
    state.appendChild(dl);
  }

  function runTest(def, button) {
    button.disabled = true;
    api('POST', '/api/connections/' + def.path + '/test')
      .then(
        (res) => {
          // The state above is drawn again with the outcome and its reason; this only says what the click did.
          if (res && res.ok) inlineMessage(button, 'ok', 'Works.');
          else inlineMessage(button, 'error', 'Failed: the reason is above.');
          return showScreen('', true);
        },
        (err) => {
          if (!(err instanceof AuthError)) inlineMessage(button, 'error', 'The test could not run: ' + describe(err));
        },
      )
      .then(() => {
        button.disabled = !itemOf(def.name).source;
      });
  }

  // ---- forms ----

  /** A form shell: fields, then the actions row and the message area; disabled without a key. */
  function formShell(def, title) {
    const prefix = 'conn-' + def.path;
    const form = el('form', 'conn-form');
    form.id = prefix + '-form';
    form.noValidate = true;
    form.autocomplete = 'off';
    if (title) form.appendChild(el('h4', '', title));
    const fields = el('fieldset', 'conn-fields');
    fields.disabled = !keyOk();
    form.appendChild(fields);
    const actions = el('div', 'form-actions');
    const message = el('div', 'conn-form-message');
    message.id = prefix + '-message';
    if (flash[def.name]) {
      const [kind, text] = flash[def.name];
      delete flash[def.name];
      message.appendChild(messageBox(kind, text));
    }
    form.appendChild(actions);
    form.appendChild(message);
    return { form, fields, actions, prefix, errors: formErrors(form, prefix, message), message };
  }

  function submitButton(prefix, text) {
    const button = el('button', 'primary', text);
    button.type = 'submit';
    button.id = prefix + '-submit';
    button.disabled = !keyOk();
    return button;
  }

  /** Remove (or Disconnect): only for a connection set here. */
  function removeButton(def, c, label, question) {
    const button = el('button', 'danger', label);
    button.type = 'button';
    button.id = 'conn-' + def.path + '-remove';
    button.hidden = c.source !== 'console';
    button.addEventListener('click', () =>
      confirmInline(button, question, label.replace(/…$/, '')).then((yes) => {
        if (!yes) return;
        button.disabled = true;
        api('DELETE', '/api/connections/' + def.path).then(
          (res) => {
            const revokeFailed = res && res.revoked === false;
            flash[def.name] = [revokeFailed ? 'info' : 'ok', upperFirst(show(res && res.detail)) + '.'];
            return showScreen('', false);
          },
          (err) => {
            button.disabled = false;
            if (!(err instanceof AuthError)) inlineMessage(button, 'error', 'Not removed: ' + describe(err));
          },
        );
      }),
    );
    return button;
  }

  /** Sends a form; on success the screen is drawn again with `okText` in the card. */
  function send(def, shell, button, method, body, okText) {
    shell.errors.clear();
    button.disabled = true;
    shell.errors.say('info', method === 'PUT' && def.name !== 'webhooks' ? 'Testing the connection before saving…' : 'Saving…');
    return api(method, '/api/connections/' + def.path, body)
      .then(
        (view) => {
          flash[def.name] = ['ok', typeof okText === 'function' ? okText(view) : okText];
          return showScreen('', false);
        },
        (err) => showFailure(shell.errors, err, def),
      )
      .then(() => {
        button.disabled = !keyOk();
      });
  }

  function urlAndSecretForm(def, c, secretName, secretLabel, baseHint, basePlaceholder) {
    const shell = formShell(def, c.source ? 'Change the connection' : 'Connect');
    const s = c.settings || {};
    const last4 = secretName === 'token' ? s.token_last4 : s.api_key_last4;
    const base = field(shell.prefix, 'base_url', 'API address', {
      value: s.base_url || '',
      placeholder: basePlaceholder,
      hint: baseHint,
      mono: true,
      wide: true,
    });
    const secret = field(shell.prefix, secretName, secretLabel, {
      type: 'password',
      placeholder: last4 ? 'the saved one ends in …' + last4 + '; enter it again to change' : '',
      hint: c.source ? 'Enter it again even if only the address changes.' : null,
      wide: true,
    });
    shell.fields.appendChild(base);
    shell.fields.appendChild(secret);
    const button = submitButton(shell.prefix, 'Test and save');
    shell.actions.appendChild(button);
    shell.actions.appendChild(el('span', 'muted conn-note', 'crm-sync tries it first and saves only what works.'));
    shell.actions.appendChild(el('span', 'grow'));
    shell.actions.appendChild(removeButton(def, c, 'Remove…', 'Forget this connection? crm-sync stops calling the ' + def.title.toLowerCase() + '.'));
    shell.form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      shell.errors.clear();
      const body = { base_url: base.input.value.trim() };
      body[secretName] = secret.input.value.trim();
      let missing = false;
      if (!body.base_url) missing = shell.errors.field('base_url', 'Enter the address.');
      if (!body[secretName]) missing = shell.errors.field(secretName, 'Enter the ' + secretLabel.toLowerCase() + '.') || missing;
      if (missing) return;
      send(def, shell, button, 'PUT', body, (view) => {
        secret.input.value = '';
        return 'Saved: ' + (view && view.detail ? show(view.detail) : 'connected') + '.';
      });
    });
    return shell.form;
  }

  const serviceForm = (def, c) =>
    urlAndSecretForm(
      def,
      c,
      'token',
      'API token',
      'Ends in /v1. Ask the service for an API token with read access to projects and proposals.',
      'the https address of its API, ending in /v1',
    );

  const appointmentForm = (def, c) =>
    urlAndSecretForm(def, c, 'api_key', 'API key', 'The address of its API, as its documentation gives it.', 'the https address of its API');

  function zohoForm(def, c) {
    const shell = formShell(def, c.source ? 'Connect again (another account or client)' : 'Connect Zoho CRM');
    const s = c.settings || {};
    const centres = Array.isArray(data.data_centres) ? data.data_centres : [];

    const step1 = el('div', 'conn-step wide');
    step1.appendChild(
      el('span', 'conn-label', '1. In Zoho’s API console (api-console.zoho.com), add a Server-based Application with this Authorized Redirect URI:'),
    );
    step1.appendChild(copyRow(shell.prefix + '-redirect_uri', show(data.redirect_uri), 'Redirect URI'));
    if (data.public_url_set === false) {
      step1.appendChild(
        el('span', 'conn-hint warn-text', 'PUBLIC_URL is not set, so this address is only right when your browser runs on the same machine as crm-sync.'),
      );
    }
    shell.fields.appendChild(step1);
    shell.fields.appendChild(el('span', 'conn-label wide', '2. Enter what Zoho shows for that client, and where your Zoho account lives:'));

    const dcWrap = el('label', 'conn-field wide conn-dc');
    dcWrap.appendChild(el('span', 'conn-label', 'Data centre'));
    const select = el('select');
    select.id = shell.prefix + '-data_centre';
    for (const dc of centres) {
      const code = show(dc.code);
      const option = el('option', '', (REGIONS[code] || code) + ' — ' + show(dc.accounts_url).replace(/^https?:\/\//, ''));
      option.value = show(dc.accounts_url);
      select.appendChild(option);
    }
    const known = centres.some((dc) => dc.accounts_url === s.accounts_url);
    if (known) select.value = s.accounts_url;
    dcWrap.appendChild(select);
    dcWrap.appendChild(el('span', 'conn-hint', 'The address you sign in to Zoho at says it: zoho.com, zoho.eu, zoho.in…'));
    shell.fields.appendChild(dcWrap);

    const id = field(shell.prefix, 'client_id', 'Client ID', { value: s.client_id || '', mono: true });
    const secret = field(shell.prefix, 'client_secret', 'Client secret', {
      type: 'password',
      placeholder: s.client_secret_last4 ? 'leave empty to keep …' + s.client_secret_last4 : '',
    });
    shell.fields.appendChild(id);
    shell.fields.appendChild(secret);

    const advanced = el('details', 'conn-advanced wide');
    advanced.appendChild(el('summary', '', 'Advanced: accounts server URL'));
    const other = field(shell.prefix, 'accounts_url', 'Accounts server URL', {
      value: s.accounts_url && !known ? s.accounts_url : '',
      placeholder: 'the https address of the accounts server',
      hint: 'Only for a test server or a proxy on your network. When set, it is used instead of the data centre.',
      mono: true,
      wide: true,
    });
    advanced.appendChild(other);
    advanced.open = Boolean(s.accounts_url && !known);
    shell.fields.appendChild(advanced);
    // An accounts server entered by hand stands for the data centre: the select says so rather than show one unused.
    const otherOption = el('option', '', 'Other: the accounts server under Advanced');
    otherOption.value = '';
    otherOption.hidden = true;
    select.appendChild(otherOption);
    const byHand = () => {
      const manual = other.input.value.trim() !== '';
      if (manual) select.value = '';
      else if (select.value === '') select.value = known ? s.accounts_url : select.options[0] ? select.options[0].value : '';
      select.disabled = manual;
    };
    other.input.addEventListener('input', byHand);
    byHand();

    const button = submitButton(shell.prefix, c.source ? 'Connect again…' : 'Connect…');
    shell.actions.appendChild(button);
    shell.actions.appendChild(el('span', 'muted conn-note', '3. Zoho asks you to sign in and accept, then sends you back here.'));
    shell.actions.appendChild(el('span', 'grow'));
    shell.actions.appendChild(
      removeButton(def, c, 'Disconnect…', 'Disconnect Zoho CRM? crm-sync gives back its access at Zoho and stops attaching PDFs until it is connected again.'),
    );

    shell.form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      shell.errors.clear();
      const body = { accounts_url: other.input.value.trim() || select.value, client_id: id.input.value.trim() };
      const clientSecret = secret.input.value.trim();
      if (clientSecret) body.client_secret = clientSecret;
      let missing = false;
      if (!body.client_id) missing = shell.errors.field('client_id', 'Enter the Client ID from Zoho’s API console.');
      if (!clientSecret && !(s.client_secret_last4 && s.client_id === body.client_id)) {
        missing = shell.errors.field('client_secret', 'Enter the Client secret from Zoho’s API console.') || missing;
      }
      if (missing) return;
      button.disabled = true;
      shell.errors.say('info', 'Opening Zoho…');
      api('PUT', '/api/connections/record-crm', body).then(
        (res) => {
          const url = res && res.authorize_url ? show(res.authorize_url) : '';
          if (!/^https?:\/\//.test(url)) {
            button.disabled = false;
            shell.errors.say('error', 'The daemon did not answer where to sign in at Zoho.');
            return;
          }
          sessionStorage.setItem(CONNECTING_KEY, String(Date.now()));
          window.location.assign(url);
        },
        (err) => {
          button.disabled = false;
          showFailure(shell.errors, err, def);
        },
      );
    });
    return shell.form;
  }

  function webhooksForm(def, c) {
    const shell = formShell(def, null);
    const last4 = (c.settings && c.settings.secrets_last4) || {};

    shell.fields.appendChild(el('h4', 'wide', c.source ? 'Change the secrets' : 'Set the secrets'));
    shell.fields.appendChild(
      el(
        'p',
        'conn-hint wide',
        'Each webhook is signed with a secret the service and crm-sync share. To change one without losing deliveries: add the new secret and keep the old one, save, enter the new one in the service, then come back and untick the old one.',
      ),
    );
    const columns = el('div', 'conn-secrets wide');
    const inputs = {};
    for (const w of WEBHOOKS) {
      const box = el('div', 'conn-secret');
      const info = el('div', 'conn-secret-info');
      info.appendChild(el('h5', '', w.title));
      info.appendChild(el('span', 'conn-hint', 'For ' + w.what + (w.required ? '. Required.' : '. Optional.')));
      const current = Array.isArray(last4[w.key]) ? last4[w.key] : [];
      const keeps = [];
      if (current.length === 0) info.appendChild(el('span', 'conn-none', 'No secret saved.'));
      current.forEach((x, i) => {
        const label = el('label', 'conn-keep');
        const check = el('input');
        check.type = 'checkbox';
        check.id = 'conn-webhooks-keep-' + w.key + '-' + i;
        check.checked = Boolean(x);
        check.disabled = !x;
        label.appendChild(check);
        label.appendChild(el('span', '', 'keep '));
        label.appendChild(el('code', '', x ? ending(x) : '(a short secret)'));
        if (!x) label.appendChild(el('span', 'conn-hint', ' too short to keep: enter it again'));
        info.appendChild(label);
        if (x) keeps.push([check, x]);
      });
      box.appendChild(info);
      const wrap = el('div', 'conn-field');
      const caption = el('label', 'conn-label', current.length ? 'Add a new secret' : 'New secret');
      caption.htmlFor = 'conn-webhooks-' + w.key;
      wrap.appendChild(caption);
      const row = el('div', 'copy-row');
      const input = el('input', 'mono');
      input.type = 'password';
      input.id = 'conn-webhooks-' + w.key;
      input.autocomplete = 'new-password';
      input.spellcheck = false;
      input.placeholder = 'at least ' + MIN_WEBHOOK_SECRET + ' characters';
      row.appendChild(input);
      const generate = el('button', 'small', 'Generate');
      generate.type = 'button';
      generate.id = 'conn-webhooks-generate-' + w.key;
      generate.title = 'Fill in a random secret and copy it, to paste into the service';
      generate.addEventListener('click', () => {
        const bytes = new Uint8Array(24);
        window.crypto.getRandomValues(bytes);
        input.value = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
        copyText(input.value).then((ok) =>
          inlineMessage(row, ok ? 'ok' : 'info', ok ? 'Generated and copied: paste it into the service.' : 'Generated. Copy it with Ctrl+C.'),
        );
      });
      row.appendChild(generate);
      wrap.appendChild(row);
      const error = el('span', 'field-error');
      error.id = 'conn-webhooks-' + w.key + '-error';
      wrap.appendChild(error);
      box.appendChild(wrap);
      columns.appendChild(box);
      inputs[w.key] = { input, keeps };
    }
    shell.fields.appendChild(columns);

    const button = submitButton(shell.prefix, 'Save secrets');
    shell.actions.appendChild(button);
    shell.actions.appendChild(el('span', 'grow'));
    shell.actions.appendChild(removeButton(def, c, 'Remove all…', 'Forget every webhook secret? crm-sync then refuses every delivery from the service.'));

    shell.form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      shell.errors.clear();
      const body = {};
      let bad = false;
      for (const w of WEBHOOKS) {
        const { input, keeps } = inputs[w.key];
        const fresh = input.value.trim();
        const list = [];
        if (fresh) {
          if (fresh.length < MIN_WEBHOOK_SECRET)
            bad = shell.errors.field(w.key, 'Too short: at least ' + MIN_WEBHOOK_SECRET + ' characters (this one has ' + fresh.length + ').');
          list.push(fresh);
        }
        for (const [check, x] of keeps) if (check.checked) list.push('…' + x);
        if (w.required && list.length === 0) bad = shell.errors.field(w.key, 'The events webhook needs a secret: without one, crm-sync refuses every event.');
        body[w.key] = list;
      }
      if (bad) return;
      send(def, shell, button, 'PUT', body, 'Secrets saved. Enter any new one in the service’s webhook settings.');
    });
    return shell.form;
  }

  return { show: showScreen };
}
