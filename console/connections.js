// @ts-check
/**
 * The Connections screen (`GET /api/connections`): a card per connection (the service, the appointment CRM, Zoho CRM,
 * the webhooks) with its state, where it was set, its last check, a Test button (operator) and the form that sets it
 * (admin; none for a connection set in the environment). New settings are tested by the daemon before it saves them;
 * a refusal is shown next to the form in plain words picked by the daemon's codes, the daemon's own text below them.
 * Secrets are never shown: the API answers their last 4 characters at most, and inputs for new ones are password fields.
 * The cards are in connection-cards.js, the forms in connection-forms.js, zoho-form.js and webhooks-form.js.
 */
import { ApiError, AuthError, api, describe } from './api.js';
import { banners, card, updateState } from './connection-cards.js';
import { CARDS } from './connection-words.js';
import { $, can, el, inlineMessage } from './dom.js';
import { CONNECTING_KEY } from './zoho-form.js';

/** @typedef {import('./connection-words.js').ConnectionsAnswer} ConnectionsAnswer */
/** @typedef {import('./connection-words.js').ConnectionView} ConnectionView */
/** @typedef {import('./connection-words.js').ConnectionName} ConnectionName */
/** @typedef {import('./connection-words.js').CardDef} CardDef */
/** @typedef {import('./connection-cards.js').CardsScreen} CardsScreen */

export function initConnections() {
  const body = /** @type {HTMLElement} */ ($('connections-body'));
  let gen = 0;
  /** @type {ConnectionsAnswer} */
  let data = {};

  /** @type {CardsScreen} */
  const screen = {
    data: () => data,
    keyOk: () => !data.key || data.key.ok !== false,
    // Messages to show in a card's form area at its next drawing (after a save, which draws the screen again).
    flash: {},
    redraw: (refresh) => showScreen('', refresh),
    itemOf: (name) => (Array.isArray(data.items) ? data.items.find((i) => i.name === name) : null) || { name, status: 'not_configured', source: null },
    runTest,
  };

  /**
   * @param {unknown} _arg
   * @param {boolean} [refresh]
   */
  function showScreen(_arg, refresh) {
    const mine = ++gen;
    // Refreshing keeps the forms (someone may be typing): only the states are drawn again.
    const full = !refresh || !body.querySelector('.conn-card');
    if (!refresh) body.replaceChildren(el('p', 'muted loading', 'Loading…'));
    return api('GET', '/api/connections').then(
      /** @param {ConnectionsAnswer | null} answer */
      (answer) => {
        if (mine !== gen) return;
        data = answer || {};
        if (full) render();
        else for (const def of CARDS) updateState(screen, def);
      },
      (err) => {
        if (mine !== gen || err instanceof AuthError) return;
        const missing = err instanceof ApiError && err.routeMissing;
        body.replaceChildren(el('div', 'unavailable ' + (missing ? 'info' : 'error'), 'Connections ' + (missing ? 'are ' : 'failed: ') + describe(err)));
      },
    );
  }

  function render() {
    body.replaceChildren();
    noteZohoReturn();
    banners(screen, body);
    // An admin's cards are full width, the state beside the form; others see the states two by two.
    const grid = el('div', 'conn-cards' + (can('admin') ? ' editable' : ''));
    grid.id = 'connections-cards';
    for (const def of CARDS) grid.appendChild(card(screen, def));
    body.appendChild(grid);
    for (const def of CARDS) updateState(screen, def);
  }

  /** Back from Zoho's consent: says so once. */
  function noteZohoReturn() {
    const started = Number(sessionStorage.getItem(CONNECTING_KEY) || 0);
    if (!started) return;
    sessionStorage.removeItem(CONNECTING_KEY);
    const zoho = screen.itemOf('record_crm');
    if (zoho.source === 'console' && zoho.updated_at && Date.parse(zoho.updated_at) >= started - 60000) {
      screen.flash.record_crm = ['ok', 'Zoho CRM is connected. crm-sync attaches PDFs with the access you granted.'];
    }
  }

  /**
   * @param {CardDef} def
   * @param {HTMLButtonElement} button
   */
  function runTest(def, button) {
    button.disabled = true;
    api('POST', '/api/connections/' + def.path + '/test')
      .then(
        /** @param {{ ok?: boolean } | null} res */
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
        button.disabled = !screen.itemOf(def.name).source;
      });
  }

  return { show: showScreen };
}
