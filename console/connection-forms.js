// @ts-check
/**
 * The Connections screen's forms: the shell every form shares (fields, actions, message), the Remove button, sending
 * a form, and the service's and the appointment CRM's form (an address and a secret). Zoho's and the webhooks' forms
 * are in zoho-form.js and webhooks-form.js.
 */
import { AuthError, api, describe } from './api.js';
import { upperFirst } from './connection-words.js';
import { formErrors, field, messageBox, showFailure } from './connection-widgets.js';
import { confirmInline, el, inlineMessage, show } from './dom.js';
import { salesforceForm } from './salesforce-form.js';

/** @typedef {import('./connection-words.js').CardDef} CardDef */
/** @typedef {import('./connection-words.js').ConnectionView} ConnectionView */
/** @typedef {import('./connection-words.js').ConnectionsAnswer} ConnectionsAnswer */
/** @typedef {import('./connection-widgets.js').MessageKind} MessageKind */

/**
 * What the forms share with the screen.
 * @typedef {object} Screen
 * @property {() => ConnectionsAnswer} data the last answer of `GET /api/connections`
 * @property {() => boolean} keyOk whether the daemon can store secrets
 * @property {Partial<Record<string, [MessageKind, string]>>} flash messages for a card's next drawing
 * @property {(refresh: boolean) => Promise<void>} redraw
 */

/**
 * @typedef {object} FormShell
 * @property {HTMLFormElement} form
 * @property {HTMLFieldSetElement} fields
 * @property {HTMLElement} actions
 * @property {string} prefix
 * @property {import('./connection-widgets.js').FormErrors} errors
 */

/**
 * A form shell: fields, then the actions row and the message area; disabled without a key.
 * @param {Screen} screen
 * @param {CardDef} def
 * @param {string | null} title
 * @returns {FormShell}
 */
export function formShell(screen, def, title) {
  const prefix = 'conn-' + def.path;
  const form = /** @type {HTMLFormElement} */ (el('form', 'conn-form'));
  form.id = prefix + '-form';
  form.noValidate = true;
  form.autocomplete = 'off';
  if (title) form.appendChild(el('h4', '', title));
  const fields = /** @type {HTMLFieldSetElement} */ (el('fieldset', 'conn-fields'));
  fields.disabled = !screen.keyOk();
  form.appendChild(fields);
  const actions = el('div', 'form-actions');
  const message = el('div', 'conn-form-message');
  message.id = prefix + '-message';
  const flashed = screen.flash[def.name];
  if (flashed) {
    delete screen.flash[def.name];
    message.appendChild(messageBox(flashed[0], flashed[1]));
  }
  form.appendChild(actions);
  form.appendChild(message);
  return { form, fields, actions, prefix, errors: formErrors(form, prefix, message) };
}

/**
 * @param {Screen} screen
 * @param {string} prefix
 * @param {string} text
 */
export function submitButton(screen, prefix, text) {
  const button = /** @type {HTMLButtonElement} */ (el('button', 'primary', text));
  button.type = 'submit';
  button.id = prefix + '-submit';
  button.disabled = !screen.keyOk();
  return button;
}

/**
 * Remove (or Disconnect): only for a connection set here.
 * @param {Screen} screen
 * @param {CardDef} def
 * @param {ConnectionView} c
 * @param {string} label
 * @param {string} question
 */
export function removeButton(screen, def, c, label, question) {
  const button = /** @type {HTMLButtonElement} */ (el('button', 'danger', label));
  button.type = 'button';
  button.id = 'conn-' + def.path + '-remove';
  button.hidden = c.source !== 'console';
  button.addEventListener('click', () =>
    confirmInline(button, question, label.replace(/…$/, '')).then((yes) => {
      if (!yes) return;
      button.disabled = true;
      return api('DELETE', '/api/connections/' + def.path).then(
        /** @param {{ revoked?: boolean, detail?: string } | null} res */
        (res) => {
          const revokeFailed = res && res.revoked === false;
          screen.flash[def.name] = [revokeFailed ? 'info' : 'ok', upperFirst(show(res && res.detail)) + '.'];
          return screen.redraw(false);
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

/**
 * Sends a form; on success the screen is drawn again with `okText` in the card.
 * @param {Screen} screen
 * @param {CardDef} def
 * @param {FormShell} shell
 * @param {HTMLButtonElement} button
 * @param {Record<string, unknown>} body
 * @param {string | ((view: ConnectionView & { detail?: string }) => string)} okText
 */
export function send(screen, def, shell, button, body, okText) {
  shell.errors.clear();
  button.disabled = true;
  shell.errors.say('info', def.name !== 'webhooks' ? 'Testing the connection before saving…' : 'Saving…');
  return api('PUT', '/api/connections/' + def.path, body)
    .then(
      (view) => {
        screen.flash[def.name] = ['ok', typeof okText === 'function' ? okText(view) : okText];
        return screen.redraw(false);
      },
      (err) => showFailure(shell.errors, err, def.name),
    )
    .then(() => {
      button.disabled = !screen.keyOk();
    });
}

/**
 * The service's and the appointment CRM's form: the API's address and its secret, tested before they are saved.
 * @param {Screen} screen
 * @param {CardDef} def
 * @param {ConnectionView} c
 * @param {{ secretName: 'token' | 'api_key', secretLabel: string, baseHint: string, basePlaceholder: string }} what
 */
function urlAndSecretForm(screen, def, c, what) {
  const { secretName, secretLabel } = what;
  const shell = formShell(screen, def, c.source ? 'Change the connection' : 'Connect');
  const s = c.settings || {};
  const last4 = secretName === 'token' ? s.token_last4 : s.api_key_last4;
  const base = field(shell.prefix, 'base_url', 'API address', {
    value: s.base_url || '',
    placeholder: what.basePlaceholder,
    hint: what.baseHint,
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
  const button = submitButton(screen, shell.prefix, 'Test and save');
  shell.actions.appendChild(button);
  shell.actions.appendChild(el('span', 'muted conn-note', 'crm-sync tries it first and saves only what works.'));
  shell.actions.appendChild(el('span', 'grow'));
  shell.actions.appendChild(removeButton(screen, def, c, 'Remove…', 'Forget this connection? crm-sync stops calling the ' + def.title.toLowerCase() + '.'));
  shell.form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    shell.errors.clear();
    /** @type {Record<string, string>} */
    const body = { base_url: base.input.value.trim() };
    body[secretName] = secret.input.value.trim();
    let missing = false;
    if (!body.base_url) missing = shell.errors.field('base_url', 'Enter the address.');
    if (!body[secretName]) missing = shell.errors.field(secretName, 'Enter the ' + secretLabel.toLowerCase() + '.') || missing;
    if (missing) return;
    void send(screen, def, shell, button, body, (view) => {
      secret.input.value = '';
      return 'Saved: ' + (view && view.detail ? show(view.detail) : 'connected') + '.';
    });
  });
  return shell.form;
}

/** @param {Screen} screen @param {CardDef} def @param {ConnectionView} c */
export const serviceForm = (screen, def, c) =>
  urlAndSecretForm(screen, def, c, {
    secretName: 'token',
    secretLabel: 'API token',
    baseHint: 'Ends in /v1. Ask the service for an API token with read access to projects and proposals.',
    basePlaceholder: 'the https address of its API, ending in /v1',
  });

/** @param {Screen} screen @param {CardDef} def @param {ConnectionView} c */
const restAppointmentForm = (screen, def, c) =>
  urlAndSecretForm(screen, def, c, {
    secretName: 'api_key',
    secretLabel: 'API key',
    baseHint: 'The address of its API, as its documentation gives it.',
    basePlaceholder: 'the https address of its API',
  });

/**
 * The appointment CRM's form: a choice of adapter (a CRM with crm-sync's REST interface, or a Salesforce org), then its form.
 * @param {Screen} screen @param {CardDef} def @param {ConnectionView} c
 */
export function appointmentForm(screen, def, c) {
  const box = el('div', 'appointment-crm-kind');
  const chooser = /** @type {HTMLSelectElement} */ (el('select'));
  chooser.id = 'conn-appointment-crm-kind';
  for (const [value, words] of [
    ['rest', 'A CRM with crm-sync’s REST interface'],
    ['salesforce', 'improveit 360 on Salesforce'],
  ]) {
    const option = /** @type {HTMLOptionElement} */ (el('option', '', words));
    option.value = value;
    chooser.appendChild(option);
  }
  chooser.value = c.settings && c.settings.kind === 'salesforce' ? 'salesforce' : 'rest';
  const label = el('label', 'conn-field');
  label.appendChild(el('span', 'conn-label', 'Kind'));
  label.appendChild(chooser);
  box.appendChild(label);
  const slot = el('div');
  const draw = () => slot.replaceChildren(chooser.value === 'salesforce' ? salesforceForm(screen, def, c) : restAppointmentForm(screen, def, c));
  chooser.addEventListener('change', draw);
  draw();
  box.appendChild(slot);
  return box;
}
