// @ts-check
/**
 * The webhooks' form on the Connections screen: for each webhook, the current secrets to keep (by their last 4
 * characters) and a new one to add, typed or generated, so a secret can be rotated without losing deliveries.
 */
import { MIN_WEBHOOK_SECRET, WEBHOOKS, ending } from './connection-words.js';
import { copyText } from './connection-widgets.js';
import { formShell, removeButton, send, submitButton } from './connection-form-shell.js';
import { el, inlineMessage } from './dom.js';

/** @typedef {import('./connection-form-shell.js').Screen} Screen */
/** @typedef {import('./connection-words.js').CardDef} CardDef */
/** @typedef {import('./connection-words.js').ConnectionView} ConnectionView */
/** @typedef {{ input: HTMLInputElement, keeps: Array<[HTMLInputElement, string]> }} SecretInputs */

/**
 * A webhook's box: its secrets to keep, the input of a new one and its Generate button.
 * @param {(typeof WEBHOOKS)[number]} w
 * @param {Array<string | null>} current the last 4 characters of each secret (null when too short to show)
 * @returns {[HTMLElement, SecretInputs]}
 */
function secretBox(w, current) {
  const box = el('div', 'conn-secret');
  const info = el('div', 'conn-secret-info');
  info.appendChild(el('h5', '', w.title));
  info.appendChild(el('span', 'conn-hint', 'For ' + w.what + (w.required ? '. Required.' : '. Optional.')));
  /** @type {Array<[HTMLInputElement, string]>} */
  const keeps = [];
  if (current.length === 0) info.appendChild(el('span', 'conn-none', 'No secret saved.'));
  current.forEach((x, i) => {
    const label = el('label', 'conn-keep');
    const check = /** @type {HTMLInputElement} */ (el('input'));
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
  const caption = /** @type {HTMLLabelElement} */ (el('label', 'conn-label', current.length ? 'Add a new secret' : 'New secret'));
  caption.htmlFor = 'conn-webhooks-' + w.key;
  wrap.appendChild(caption);
  const row = el('div', 'copy-row');
  const input = /** @type {HTMLInputElement} */ (el('input', 'mono'));
  input.type = 'password';
  input.id = 'conn-webhooks-' + w.key;
  input.autocomplete = 'new-password';
  input.spellcheck = false;
  input.placeholder = 'at least ' + MIN_WEBHOOK_SECRET + ' characters';
  row.appendChild(input);
  const generate = /** @type {HTMLButtonElement} */ (el('button', 'small', 'Generate'));
  generate.type = 'button';
  generate.id = 'conn-webhooks-generate-' + w.key;
  generate.title = 'Fill in a random secret and copy it, to paste into the service';
  generate.addEventListener('click', () => {
    const bytes = new Uint8Array(24);
    window.crypto.getRandomValues(bytes);
    input.value = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    return copyText(input.value).then((ok) =>
      inlineMessage(row, ok ? 'ok' : 'info', ok ? 'Generated and copied: paste it into the service.' : 'Generated. Copy it with Ctrl+C.'),
    );
  });
  row.appendChild(generate);
  wrap.appendChild(row);
  const error = el('span', 'field-error');
  error.id = 'conn-webhooks-' + w.key + '-error';
  wrap.appendChild(error);
  box.appendChild(wrap);
  return [box, { input, keeps }];
}

/**
 * @param {Screen} screen
 * @param {CardDef} def
 * @param {ConnectionView} c
 */
export function webhooksForm(screen, def, c) {
  const shell = formShell(screen, def, null);
  /** @type {Record<string, Array<string | null>>} */
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
  /** @type {Record<string, SecretInputs>} */
  const inputs = {};
  for (const w of WEBHOOKS) {
    const [box, parts] = secretBox(w, Array.isArray(last4[w.key]) ? last4[w.key] : []);
    columns.appendChild(box);
    inputs[w.key] = parts;
  }
  shell.fields.appendChild(columns);

  const button = submitButton(screen, shell.prefix, 'Save secrets');
  shell.actions.appendChild(button);
  shell.actions.appendChild(el('span', 'grow'));
  shell.actions.appendChild(removeButton(screen, def, c, 'Remove all…', 'Forget every webhook secret? crm-sync then refuses every delivery from the service.'));

  shell.form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    shell.errors.clear();
    /** @type {Record<string, string[]>} */
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
    void send(screen, def, shell, button, body, 'Secrets saved. Enter any new one in the service’s webhook settings.');
  });
  return shell.form;
}
