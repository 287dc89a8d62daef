// @ts-check
/**
 * The Connections screen's forms of the service and of the appointment CRM (an address and a secret, or a Salesforce
 * org). What every form shares is in connection-form-shell.js; Zoho's, Salesforce's and the webhooks' forms are in
 * zoho-form.js, salesforce-form.js and webhooks-form.js.
 */
import { formShell, removeButton, send, submitButton } from './connection-form-shell.js';
import { field } from './connection-widgets.js';
import { el, show } from './dom.js';
import { salesforceForm } from './salesforce-form.js';

/** @typedef {import('./connection-words.js').CardDef} CardDef */
/** @typedef {import('./connection-words.js').ConnectionView} ConnectionView */
/** @typedef {import('./connection-form-shell.js').Screen} Screen */

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
