// @ts-check
/**
 * The Automations screen's appointment statuses (`GET /api/crm-metadata/appointment-crm/statuses`): ticked from what
 * the appointment CRM lists, or from the statuses its reads have seen when it cannot list them. The typed input stays
 * (a status not seen yet can be typed); a saved status no longer listed stays ticked, marked.
 */
import { api } from './api.js';
import { el } from './dom.js';
import { drawChecks } from './zoho-pickers.js';

/**
 * @param {HTMLElement} fields the form's fieldset, holding the input `<prefix>-statuses`
 * @param {string} prefix
 */
export function wireStatusPicker(fields, prefix) {
  const input = /** @type {HTMLInputElement | null} */ (fields.querySelector('#' + window.CSS.escape(prefix + '-statuses')));
  if (!input) return;
  const boxes = el('div', 'zoho-values');
  boxes.id = prefix + '-statuses-pick';
  boxes.setAttribute('role', 'group');
  input.after(boxes);
  const source = el('span', 'field-note');
  source.id = prefix + '-statuses-source';
  boxes.after(source);
  /** @type {{ source: string, items: Array<{ value: string, label: string }> } | null} */
  let listed = null;
  const draw = () => {
    if (listed) drawChecks(boxes, input, [{ name: null, options: listed.items }], listed.source === 'crm' ? 'no longer in the CRM' : 'not seen in the CRM');
  };
  input.addEventListener('change', draw);
  void api('GET', '/api/crm-metadata/appointment-crm/statuses').then(
    /** @param {{ source: string, items: Array<{ value: string, label: string }> } | null} res */
    (res) => {
      listed = res && Array.isArray(res.items) ? res : null;
      if (!listed) return;
      source.className = listed.source === 'crm' ? 'conn-hint' : 'field-note';
      source.textContent =
        listed.source === 'crm'
          ? 'As the appointment CRM lists them.'
          : listed.items.length
            ? 'The CRM does not list its statuses: these are the ones seen so far. Type others.'
            : 'The CRM does not list its statuses and none has been seen yet: type them.';
      draw();
    },
    () => {
      // The CRM cannot answer now: the input stays, typed.
    },
  );
}
