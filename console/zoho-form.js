// @ts-check
/**
 * Zoho CRM's form on the Connections screen: connected through Zoho's consent page. Connect sends this tab there
 * (`PUT /api/connections/record-crm` answers where), and Zoho sends it back to `#connections`.
 */
import { api } from './api.js';
import { REGIONS } from './connection-words.js';
import { copyRow, field, showFailure } from './connection-widgets.js';
import { formShell, removeButton, submitButton } from './connection-form-shell.js';
import { el, show } from './dom.js';

/** @typedef {import('./connection-form-shell.js').Screen} Screen */
/** @typedef {import('./connection-words.js').CardDef} CardDef */
/** @typedef {import('./connection-words.js').ConnectionView} ConnectionView */

/** When this tab left for Zoho's consent page (the screen says "connected" once, when it comes back). */
export const CONNECTING_KEY = 'crm-sync.zoho-connect-started';

/**
 * Sends this tab to Zoho's consent page for the client in use (its saved secret kept), asking every scope again.
 * @param {{ accounts_url: string, client_id: string, client_secret?: string }} body
 * @returns {Promise<void>}
 */
function goToConsent(body) {
  return api('PUT', '/api/connections/record-crm', body).then(
    /** @param {{ authorize_url?: string } | null} res */
    (res) => {
      const url = res && res.authorize_url ? show(res.authorize_url) : '';
      if (!/^https?:\/\//.test(url)) throw new Error('The daemon did not answer where to sign in at Zoho.');
      sessionStorage.setItem(CONNECTING_KEY, String(Date.now()));
      window.location.assign(url);
    },
  );
}

/**
 * The Reconnect button of a connection whose scopes fall short: the same client, Zoho's consent for the full set.
 * @param {ConnectionView} c
 */
export function reconnectButton(c) {
  const s = c.settings || {};
  const button = /** @type {HTMLButtonElement} */ (el('button', 'small', 'Reconnect…'));
  button.type = 'button';
  button.id = 'conn-record-crm-reconnect';
  button.title = 'Zoho asks you to accept every permission crm-sync needs; the client and its secret stay as they are';
  button.addEventListener('click', () => {
    button.disabled = true;
    goToConsent({ accounts_url: show(s.accounts_url), client_id: show(s.client_id) }).catch((/** @type {unknown} */ err) => {
      button.disabled = false;
      button.textContent = 'Reconnect failed: ' + (err instanceof Error ? err.message : String(err));
    });
  });
  return button;
}

/**
 * @param {Screen} screen
 * @param {CardDef} def
 * @param {ConnectionView} c
 */
export function zohoForm(screen, def, c) {
  const data = screen.data();
  const shell = formShell(screen, def, c.source ? 'Connect again (another account or client)' : 'Connect Zoho CRM');
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
  step1.appendChild(
    el(
      'span',
      'conn-hint',
      'Zoho account outside the US data centre? In that client’s Settings in Zoho’s API console, turn on your data centre and choose the same client secret for all data centres; or pick your data centre below and enter the secret Zoho shows for it.',
    ),
  );
  shell.fields.appendChild(step1);
  shell.fields.appendChild(el('span', 'conn-label wide', '2. Enter what Zoho shows for that client, and where your Zoho account lives:'));

  const dcWrap = el('label', 'conn-field wide conn-dc');
  dcWrap.appendChild(el('span', 'conn-label', 'Data centre'));
  const select = /** @type {HTMLSelectElement} */ (el('select'));
  select.id = shell.prefix + '-data_centre';
  for (const dc of centres) {
    const code = show(dc.code);
    const option = /** @type {HTMLOptionElement} */ (el('option', '', (REGIONS[code] || code) + ' — ' + show(dc.accounts_url).replace(/^https?:\/\//, '')));
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

  const advanced = /** @type {HTMLDetailsElement} */ (el('details', 'conn-advanced wide'));
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
  const otherOption = /** @type {HTMLOptionElement} */ (el('option', '', 'Other: the accounts server under Advanced'));
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

  const button = submitButton(screen, shell.prefix, c.source ? 'Connect again…' : 'Connect…');
  shell.actions.appendChild(button);
  shell.actions.appendChild(el('span', 'muted conn-note', '3. Zoho asks you to sign in and accept, then sends you back here.'));
  shell.actions.appendChild(el('span', 'grow'));
  shell.actions.appendChild(
    removeButton(
      screen,
      def,
      c,
      'Disconnect…',
      'Disconnect Zoho CRM? crm-sync gives back its access at Zoho and stops attaching PDFs until it is connected again.',
    ),
  );

  shell.form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    shell.errors.clear();
    /** @type {{ accounts_url: string, client_id: string, client_secret?: string }} */
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
    goToConsent(body).catch((err) => {
      button.disabled = false;
      showFailure(shell.errors, err, def.name);
    });
  });
  return shell.form;
}
