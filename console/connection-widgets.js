// @ts-check
/**
 * The Connections screen's pieces: message boxes, values to copy, labelled inputs, a form's errors, and a refused
 * save shown in words picked by the daemon's codes.
 */
import { ApiError, AuthError, describe } from './api.js';
import { checkWords, fieldWords, upperFirst } from './connection-words.js';
import { el, inlineMessage, show } from './dom.js';

/** @typedef {import('./connection-words.js').ConnectionName} ConnectionName */
/** @typedef {import('./connection-words.js').FieldError} FieldError */
/** @typedef {'ok' | 'info' | 'error'} MessageKind */

/**
 * A message box: the plain words, the daemon's own text under them when it says more.
 * @param {MessageKind} kind
 * @param {string} words
 * @param {string | null} [detail]
 */
export function messageBox(kind, words, detail) {
  const box = el('div', 'conn-msg ' + kind);
  box.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  box.appendChild(el('span', 'conn-msg-words', words));
  if (detail && detail !== words) box.appendChild(el('span', 'conn-msg-detail', detail));
  return box;
}

/**
 * Copies text; resolves true when it worked.
 * @param {string} text
 * @returns {Promise<boolean>}
 */
export function copyText(text) {
  const fallback = () => {
    const area = /** @type {HTMLTextAreaElement} */ (el('textarea', 'offscreen'));
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

/**
 * A value to copy elsewhere (wrapped, selected whole on a click) with a Copy button.
 * @param {string} id
 * @param {string} value
 * @param {string} label
 */
export function copyRow(id, value, label) {
  const row = el('div', 'copy-row');
  // Lines may break after a slash, not inside a word.
  const text = el('code', 'copy-value');
  value.split(/(?<=\/)/).forEach((part, i) => {
    if (i) text.appendChild(el('wbr'));
    text.appendChild(document.createTextNode(part));
  });
  text.id = id;
  text.title = label;
  const button = /** @type {HTMLButtonElement} */ (el('button', 'small', 'Copy'));
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

/** @typedef {{ type?: string, value?: string, placeholder?: string, hint?: string | null, mono?: boolean, wide?: boolean }} FieldOptions */
/** @typedef {HTMLLabelElement & { input: HTMLInputElement }} LabelledInput */

/**
 * A labelled input with its error line; returns the label (with `.input`).
 * @param {string} prefix
 * @param {string} name
 * @param {string} label
 * @param {FieldOptions} [options]
 * @returns {LabelledInput}
 */
export function field(prefix, name, label, options = {}) {
  const wrap = /** @type {LabelledInput} */ (el('label', 'conn-field' + (options.wide ? ' wide' : '')));
  wrap.appendChild(el('span', 'conn-label', label));
  const input = /** @type {HTMLInputElement} */ (el('input', options.mono ? 'mono' : ''));
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

/**
 * @typedef {object} FormErrors
 * @property {() => void} clear
 * @property {(name: string, text: string) => boolean} field marks one field; false when the form has none of that name
 * @property {(kind: MessageKind, words: string, detail?: string | null) => void} say writes under the form
 */

/**
 * The form's per-field errors and its message.
 * @param {HTMLFormElement} form
 * @param {string} prefix
 * @param {HTMLElement} message
 * @returns {FormErrors}
 */
export function formErrors(form, prefix, message) {
  /** @param {string} id */
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
 * The parts of a refusal the screen reads (docs/operations.md "Codes").
 * @typedef {object} Refusal
 * @property {FieldError[]} [errors] a 400's refused fields
 * @property {string} [code] a 422's code: a failed check's, or a field's
 * @property {string} [field] a 422 that names its field
 * @property {string} [detail] a failed check's text
 */

/**
 * Shows a refused save: the fields' words next to them (400, or a 422 naming its field), a failed test (422) or a
 * refusal (409, 403) under the form.
 * @param {FormErrors} errors
 * @param {unknown} err
 * @param {ConnectionName} name
 */
export function showFailure(errors, err, name) {
  if (err instanceof AuthError) return;
  if (!(err instanceof ApiError)) {
    errors.say('error', 'Not saved: ' + describe(err));
    return;
  }
  /** @type {Refusal} */
  const data = err.data && typeof err.data === 'object' ? /** @type {Refusal} */ (err.data) : {};
  if (err.status === 400) {
    const refused = Array.isArray(data.errors) ? data.errors : [];
    const loose = refused.length ? [] : [err.message];
    for (const e of refused) {
      const words = fieldWords({ field: show(e.field), code: show(e.code), message: show(e.message), limit: e.limit });
      if (!errors.field(show(e.field), words)) loose.push(words);
    }
    if (loose.length) errors.say('error', 'Not saved: ' + loose.join(' '));
    else errors.say('error', 'Not saved: check the fields marked in red.');
    return;
  }
  if (err.status === 422 && data.field) {
    // Refused before any test, naming its field ("client_secret is required for a new client").
    if (errors.field(show(data.field), fieldWords({ field: show(data.field), code: show(data.code), message: err.message }))) {
      errors.say('error', 'Not saved: check the fields marked in red.');
      return;
    }
  }
  if (err.status === 422) {
    const detail = data.detail ? show(data.detail) : err.message;
    const words = checkWords(data.code, name);
    errors.say('error', 'Not saved. ' + (words || upperFirst(detail)), words ? detail : null);
    return;
  }
  if (err.status === 409) {
    errors.say('error', 'Not saved: ' + err.message + '.');
    return;
  }
  errors.say('error', 'Not saved: ' + describe(err));
}
