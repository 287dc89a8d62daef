// @ts-check
/**
 * The Automations screen (`GET /api/automations`): a card per CRM saying whether new records become projects in the
 * service, when the CRM was last read, how far, and the last error; a "Check now" button (operator,
 * `POST /api/automations/:crm/run`) and the settings' form (admin; others see it disabled). A refused save (422)
 * shows each error beside its field. A refresh draws the states again and leaves the forms as typed.
 */
import { ApiError, AuthError, api, describe } from './api.js';
import { formErrors } from './connection-widgets.js';
import { buildFields, refusalWords } from './automation-forms.js';
import { $, can, el, fmtTime, inlineMessage, link, show } from './dom.js';

/** @typedef {import('./automation-forms.js').AutomationCrm} AutomationCrm */
/** @typedef {import('./automation-forms.js').AutomationView} AutomationView */

/**
 * @typedef {object} CardDef
 * @property {AutomationCrm} crm
 * @property {'appointment_crm' | 'record_crm'} key its part of `GET /api/automations`
 * @property {string} path its route (`/api/automations/<path>`)
 * @property {string} title
 * @property {string} what
 * @property {string} records what the CRM's records are called
 */

/** @type {CardDef[]} */
const CARDS = [
  {
    crm: 'appointment',
    key: 'appointment_crm',
    path: 'appointment-crm',
    title: 'Appointment CRM',
    what: 'New and changed appointments are read about once a minute; each one that qualifies gets a project, mapped to it.',
    records: 'appointments',
  },
  {
    crm: 'record',
    key: 'record_crm',
    path: 'record-crm',
    title: 'Zoho CRM',
    what: 'New and changed records of the module are read about once a minute; each one that qualifies gets a project, mapped to it.',
    records: 'records',
  },
];

/**
 * Where the last read stopped: the time of the last change read (the appointment CRM's cursor), or Zoho's as given.
 * @param {unknown} cursor
 */
function cursorText(cursor) {
  if (cursor === null || cursor === undefined || cursor === '') return 'nothing read yet';
  const text = show(cursor);
  return /^\d{4}-\d\d-\d\dT/.test(text) && !isNaN(Date.parse(text)) ? 'changes up to ' + fmtTime(text) : text;
}

export function initAutomations() {
  const body = $('automations-body');
  let gen = 0;
  /** @type {Record<string, AutomationView>} */
  let data = {};
  /** Messages to show in a card's form at its next drawing (after a save). @type {Partial<Record<AutomationCrm, string>>} */
  const flash = {};

  /**
   * @param {string} _arg
   * @param {boolean} [refresh]
   */
  function showScreen(_arg, refresh) {
    const mine = ++gen;
    const full = !refresh || !body.querySelector('.auto-card');
    if (!refresh) body.replaceChildren(el('p', 'muted loading', 'Loading…'));
    return api('GET', '/api/automations').then(
      /** @param {Record<string, AutomationView> | null} answer */
      (answer) => {
        if (mine !== gen) return;
        data = answer || {};
        if (full) render();
        else for (const def of CARDS) drawState(def);
      },
      (err) => {
        if (mine !== gen || err instanceof AuthError) return;
        const missing = err instanceof ApiError && err.routeMissing;
        body.replaceChildren(el('div', 'unavailable ' + (missing ? 'info' : 'error'), 'Automations ' + (missing ? 'are ' : 'failed: ') + describe(err)));
      },
    );
  }

  /** @param {CardDef} def @returns {AutomationView} */
  const viewOf = (def) => data[def.key] || {};

  function render() {
    body.replaceChildren();
    const grid = el('div', 'conn-cards editable auto-cards');
    grid.id = 'automations-cards';
    for (const def of CARDS) grid.appendChild(card(def));
    body.appendChild(grid);
    for (const def of CARDS) drawState(def);
  }

  /** @param {CardDef} def */
  function card(def) {
    const box = el('section', 'card conn-card auto-card');
    box.id = 'auto-' + def.crm + '-card';
    const state = el('div', 'auto-state');
    state.id = 'auto-' + def.crm + '-state';
    box.appendChild(state);
    const side = el('div', 'conn-side');
    side.appendChild(form(def));
    box.appendChild(side);
    return box;
  }

  /** The left of a card: on or off, the last read, how far, the last error, and Check now. @param {CardDef} def */
  function drawState(def) {
    const state = $('auto-' + def.crm + '-state');
    const v = viewOf(def);
    const on = v.create_projects === true;
    const box = /** @type {HTMLElement} */ (state.closest('.auto-card'));
    box.classList.toggle('conn-connected', on);
    const head = el('div', 'conn-card-head');
    head.appendChild(el('h3', '', def.title));
    const status = el('span', 'badge ' + (on ? 's-succeeded' : 's-skipped'), on ? 'creating projects' : 'off');
    status.id = 'auto-' + def.crm + '-status';
    head.appendChild(status);
    const facts = el('dl', 'conn-facts auto-facts');
    /** @param {string} term @param {string} value @param {string} [id] @param {string} [className] */
    const fact = (term, value, id, className) => {
      facts.appendChild(el('dt', '', term));
      const dd = el('dd', className || '', value);
      if (id) dd.id = 'auto-' + def.crm + '-' + id;
      facts.appendChild(dd);
      return dd;
    };
    fact('Qualifying', qualifying(def, v));
    fact('Owner', ownerText(v));
    fact('Last read', v.last_run_at ? fmtTime(show(v.last_run_at)) : 'never', 'last-run').title = show(v.last_run_at);
    fact('Read so far', cursorText(v.cursor), 'cursor').title = show(v.cursor);
    if (def.crm === 'record' && v.notifications) {
      const n = v.notifications;
      const notified = n.state === 'notified';
      const text = notified ? 'notified by Zoho (channel until ' + fmtTime(show(n.channel_expiry)) + ')' : 'polling: ' + show(n.reason);
      fact('Changes arrive', text, 'notifications', notified ? '' : 'muted').title = notified
        ? 'Zoho notifies crm-sync of each created or edited record; the schedule still reads the changes now and then'
        : 'crm-sync reads the changes on its schedule';
    }
    if (v.last_error) fact('Last error', show(v.last_error), 'last-error', 'err');
    else fact('Last error', 'none', 'last-error', 'muted');
    if (v.updated_at) fact('Settings saved', fmtTime(show(v.updated_at)) + (v.updated_by ? ' by ' + show(v.updated_by) : ''));
    const row = el('div', 'conn-test-row');
    const button = /** @type {HTMLButtonElement} */ (el('button', '', 'Check now'));
    button.type = 'button';
    button.id = 'auto-' + def.crm + '-run';
    button.title = 'POST /api/automations/' + def.path + '/run: read new and changed ' + def.records + ' now';
    button.hidden = !can('operator');
    button.disabled = !on;
    if (!on) button.title = 'Turn project creation on first';
    button.addEventListener('click', () => runNow(def, button));
    row.appendChild(button);
    if (!on && can('operator')) row.appendChild(el('span', 'muted conn-note auto-off-note', 'Turn project creation on to check.'));
    const previous = state.querySelector('.conn-test-row .inline-msg');
    if (previous) row.appendChild(previous);
    state.replaceChildren(head, el('p', 'muted conn-what', def.what), facts, row);
  }

  /** @param {CardDef} def @param {AutomationView} v */
  function qualifying(def, v) {
    if (def.crm === 'appointment') {
      const statuses = Array.isArray(v.statuses) ? v.statuses.map(show) : [];
      return statuses.length ? 'appointments with status ' + statuses.join(', ') : 'every appointment';
    }
    const values = Array.isArray(v.values) ? v.values.map(show) : [];
    const module = show(v.module || 'Deals');
    if (!v.field) return 'every record of ' + module;
    return module + ' whose ' + show(v.field) + (values.length ? ' is ' + values.join(' or ') : ' is set');
  }

  /** @param {AutomationView} v */
  function ownerText(v) {
    const owner = v.owner ? show(v.owner) : 'not set';
    return v.owner_from_sales_rep ? 'the sales rep, else ' + owner : owner;
  }

  /** @param {CardDef} def @param {HTMLButtonElement} button */
  function runNow(def, button) {
    button.disabled = true;
    api('POST', '/api/automations/' + def.path + '/run')
      .then(
        /** @param {{ id?: unknown } | null} res */
        (res) => {
          const box = inlineMessage(button, 'ok', 'Reading new and changed ' + def.records + ' now: ');
          const id = res && res.id !== undefined ? show(res.id) : '';
          if (id) box.appendChild(link('sync log #' + id, '#logs/' + encodeURIComponent(id)));
          // The read takes a moment; its outcome shows in the card's facts.
          setTimeout(() => void showScreen('', true), 3000);
        },
        (err) => {
          if (!(err instanceof AuthError)) inlineMessage(button, 'error', 'Could not start a check: ' + describe(err));
        },
      )
      .then(() => {
        button.disabled = viewOf(def).create_projects !== true;
      });
  }

  /** The right of a card: the settings, saved with `PUT /api/automations/<path>`. @param {CardDef} def */
  function form(def) {
    const prefix = 'auto-' + def.crm;
    const f = /** @type {HTMLFormElement} */ (el('form', 'conn-form auto-form'));
    f.id = prefix + '-form';
    f.noValidate = true;
    f.autocomplete = 'off';
    const fields = /** @type {HTMLFieldSetElement} */ (el('fieldset', 'conn-fields'));
    const admin = can('admin');
    fields.disabled = !admin;
    f.appendChild(fields);
    const readBody = buildFields(fields, prefix, def.crm, viewOf(def));
    const actions = el('div', 'form-actions');
    const message = el('div', 'conn-form-message');
    message.id = prefix + '-message';
    f.appendChild(actions);
    f.appendChild(message);
    const errors = formErrors(f, prefix, message);
    const said = flash[def.crm];
    if (said) {
      delete flash[def.crm];
      errors.say('ok', said);
    }
    if (!admin) {
      actions.appendChild(el('span', 'muted conn-note', 'Only an admin can change these settings.'));
      return f;
    }
    const button = /** @type {HTMLButtonElement} */ (el('button', 'primary', 'Save'));
    button.type = 'submit';
    button.id = prefix + '-submit';
    actions.appendChild(button);
    actions.appendChild(el('span', 'muted conn-note', 'In effect on every replica within 10 seconds.'));
    f.addEventListener('submit', (ev) => {
      ev.preventDefault();
      errors.clear();
      button.disabled = true;
      api('PUT', '/api/automations/' + def.path, readBody())
        .then(
          /** @param {AutomationView | null} view */
          (view) => {
            data[def.key] = view || {};
            flash[def.crm] = view && view.create_projects ? 'Saved. New ' + def.records + ' that qualify become projects.' : 'Saved. Project creation is off.';
            redrawCard(def);
          },
          (err) => showRefusal(errors, err),
        )
        .then(() => {
          button.disabled = false;
        });
    });
    return f;
  }

  /** @param {CardDef} def */
  function redrawCard(def) {
    const old = $('auto-' + def.crm + '-card');
    old.replaceWith(card(def));
    drawState(def);
  }

  /**
   * @param {import('./connection-widgets.js').FormErrors} errors
   * @param {unknown} err
   */
  function showRefusal(errors, err) {
    if (err instanceof AuthError) return;
    const data = err instanceof ApiError && err.data && typeof err.data === 'object' ? err.data : {};
    if (!(err instanceof ApiError) || err.status !== 422 || !Array.isArray(data.errors)) {
      errors.say('error', 'Not saved: ' + describe(err));
      return;
    }
    /** @type {string[]} */
    const loose = [];
    for (const e of data.errors) {
      const words = refusalWords(e);
      if (!errors.field(show(e.field), words)) loose.push(words);
    }
    errors.say('error', loose.length ? 'Not saved: ' + loose.join(' ') : 'Not saved: check the fields marked in red.');
  }

  return { show: showScreen };
}
