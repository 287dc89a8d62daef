// @ts-check
/**
 * The Automations screen's Zoho pickers (`GET /api/crm-metadata/record-crm/fields?module=`): the qualifying field and
 * the job-number field chosen from the module's fields (by label, API name beside), the qualifying values ticked from
 * the chosen field's pick list. Each picker sits beside the input it fills, which stays (typing is still possible,
 * for a field Zoho does not list); a value that is not among Zoho's fields or pick list says so beside it.
 */
import { api, query } from './api.js';
import { el } from './dom.js';

/** @typedef {{ api_name: string, label: string, data_type: string, pick_list: Array<{ value: string, label: string }> | null }} ZohoField */

/**
 * @param {HTMLElement} fields the form's fieldset, holding the inputs `<prefix>-module`, `-field`, `-values`, `-match_fields.job_number`
 * @param {string} prefix
 */
export function wireZohoPickers(fields, prefix) {
  /** @param {string} name */
  const byId = (name) => /** @type {HTMLInputElement | HTMLSelectElement | null} */ (fields.querySelector('#' + window.CSS.escape(prefix + '-' + name)));
  const moduleSelect = byId('module');
  const fieldInput = /** @type {HTMLInputElement | null} */ (byId('field'));
  const valuesInput = /** @type {HTMLInputElement | null} */ (byId('values'));
  const jobInput = /** @type {HTMLInputElement | null} */ (byId('match_fields.job_number'));
  if (!moduleSelect || !fieldInput || !valuesInput || !jobInput) return;
  const fieldPick = fieldSelect(prefix + '-field-pick', 'every record (no field)');
  const jobPick = fieldSelect(prefix + '-job-pick', 'none');
  const boxes = el('div', 'zoho-values');
  boxes.id = prefix + '-values-pick';
  boxes.setAttribute('role', 'group');
  fieldInput.before(fieldPick);
  jobInput.before(jobPick);
  valuesInput.after(boxes);
  const fieldNote = note(fieldInput);
  const jobNote = note(jobInput);
  /** @type {ZohoField[] | null} */
  let listed = null;

  function load() {
    listed = null;
    fieldPick.disabled = jobPick.disabled = true;
    return api('GET', '/api/crm-metadata/record-crm/fields' + query({ module: moduleSelect ? moduleSelect.value : 'Deals' })).then(
      /** @param {{ items?: ZohoField[] } | null} res */
      (res) => {
        listed = res && Array.isArray(res.items) ? res.items : [];
        fill(fieldPick, listed, fieldInput ? fieldInput.value.trim() : '');
        fill(jobPick, listed, jobInput ? jobInput.value.trim() : '');
        fieldPick.disabled = jobPick.disabled = false;
        drawValues();
        check();
      },
      () => {
        // Zoho cannot list now (not connected, an error): the inputs stay, typed.
        fieldPick.hidden = jobPick.hidden = true;
        boxes.replaceChildren();
      },
    );
  }

  /** The chosen field's pick list as checkboxes, each in step with the values' input. */
  function drawValues() {
    const chosen = listed && fieldInput ? listed.find((f) => f.api_name === fieldInput.value.trim()) : undefined;
    if (!chosen || !chosen.pick_list || chosen.pick_list.length === 0 || !valuesInput) return boxes.replaceChildren();
    drawChecks(boxes, valuesInput, chosen.pick_list, 'no longer in Zoho');
  }

  /** A name Zoho does not list for this module is said beside its input. */
  function check() {
    for (const [input, words] of /** @type {Array<[HTMLInputElement | null, HTMLElement]>} */ ([
      [fieldInput, fieldNote],
      [jobInput, jobNote],
    ])) {
      const typed = input ? input.value.trim() : '';
      words.textContent =
        listed && typed && !listed.some((f) => f.api_name === typed) ? 'No such field in Zoho’s ' + (moduleSelect ? moduleSelect.value : '') + '.' : '';
    }
  }

  fieldPick.addEventListener('change', () => {
    if (fieldInput) fieldInput.value = fieldPick.value;
    if (valuesInput) valuesInput.value = '';
    drawValues();
    check();
  });
  jobPick.addEventListener('change', () => {
    if (jobInput) jobInput.value = jobPick.value;
    check();
  });
  fieldInput.addEventListener('change', () => {
    fill(fieldPick, listed || [], fieldInput.value.trim());
    drawValues();
    check();
  });
  jobInput.addEventListener('change', () => {
    fill(jobPick, listed || [], jobInput.value.trim());
    check();
  });
  valuesInput.addEventListener('change', drawValues);
  moduleSelect.addEventListener('change', () => void load());
  void load();
}

/**
 * @param {string} id
 * @param {string} none the empty choice's words
 */
function fieldSelect(id, none) {
  const select = /** @type {HTMLSelectElement} */ (el('select', 'zoho-field-pick'));
  select.id = id;
  select.dataset.none = none;
  return select;
}

/**
 * The module's fields as options (label, API name beside); the value saved earlier stays chosen, marked when Zoho no
 * longer lists it.
 * @param {HTMLSelectElement} select
 * @param {ZohoField[]} fields
 * @param {string} current
 */
function fill(select, fields, current) {
  select.replaceChildren();
  /** @param {string} value @param {string} text */
  const option = (value, text) => {
    const o = /** @type {HTMLOptionElement} */ (el('option', '', text));
    o.value = value;
    select.appendChild(o);
    return o;
  };
  option('', select.dataset.none || 'none');
  for (const f of fields) option(f.api_name, f.label + ' (' + f.api_name + ')' + (f.pick_list && f.pick_list.length ? ' · pick list' : ''));
  if (current && !fields.some((f) => f.api_name === current)) option(current, current + ' (no such field in Zoho)').className = 'gone';
  select.value = current;
}

/**
 * `options` as checkboxes in `boxes`, each in step with the comma-separated `valuesInput`; a value of the input that is
 * not among them stays ticked, marked `(<goneWords>)`.
 * @param {HTMLElement} boxes
 * @param {HTMLInputElement} valuesInput
 * @param {Array<{ value: string, label: string }>} options
 * @param {string} goneWords
 */
export function drawChecks(boxes, valuesInput, options, goneWords) {
  boxes.replaceChildren();
  const current = splitList(valuesInput.value);
  const known = options.map((p) => p.value.toLowerCase());
  /** @param {string} value @param {string} label @param {boolean} checked */
  const box = (value, label, checked) => {
    const wrap = el('label', 'auto-key');
    const input = /** @type {HTMLInputElement} */ (el('input'));
    input.type = 'checkbox';
    input.value = value;
    input.checked = checked;
    input.addEventListener('change', () => {
      valuesInput.value = [...boxes.querySelectorAll('input:checked')].map((i) => /** @type {HTMLInputElement} */ (i).value).join(', ');
    });
    wrap.appendChild(input);
    wrap.appendChild(el('span', '', label));
    boxes.appendChild(wrap);
    return wrap;
  };
  for (const p of options)
    box(
      p.value,
      p.label,
      current.some((c) => c.toLowerCase() === p.value.toLowerCase()),
    );
  for (const gone of current.filter((c) => known.indexOf(c.toLowerCase()) < 0)) box(gone, gone + ' (' + goneWords + ')', true).classList.add('gone');
}

/** @param {string} text */
function splitList(text) {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * A line under an input for what the pickers notice.
 * @param {HTMLInputElement} input
 */
function note(input) {
  const words = el('span', 'field-note');
  words.id = input.id + '-note';
  const wrap = input.closest('label');
  (wrap || input).appendChild(words);
  return words;
}
