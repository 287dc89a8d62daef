// @ts-check
/**
 * What the Connections screen's forms share: the shell (fields, actions, message), the submit and Remove buttons, and
 * sending a form. Its own file so that every form (connection-forms.js, salesforce-form.js, zoho-form.js,
 * webhooks-form.js) imports it without importing another form.
 */
import { AuthError, api, describe } from './api.js';
import { upperFirst } from './connection-words.js';
import { formErrors, messageBox, showFailure } from './connection-widgets.js';
import { confirmInline, el, inlineMessage, show } from './dom.js';

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
