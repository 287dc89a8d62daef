// @ts-check
/**
 * The Automations screen's forms (`PUT /api/automations/appointment-crm` and `/record-crm`): each CRM's fields, read
 * from its answer, and the body a save sends. A field left empty is sent as "none" (null or an empty list), so what
 * the form shows is what is saved. A refusal (422) names each bad field; its words go beside that field.
 */
import { api, query } from './api.js';
import { field } from './connection-widgets.js';
import { can, el, show } from './dom.js';
import { picker } from './picker.js';
import { wireStatusPicker } from './appointment-status-pickers.js';
import { wireZohoPickers } from './zoho-pickers.js';

/** @typedef {'appointment' | 'record'} AutomationCrm */
/** @typedef {'check' | 'list' | 'text' | 'email' | 'digits' | 'product' | 'module' | 'keys' | 'triggers' | 'time'} FieldType */
/**
 * One input of a form: `name` is the API's field (`match_fields.job_number` for a nested one).
 * @typedef {{ name: string, type: FieldType, label: string, hint?: string, placeholder?: string }} FieldDef
 */
/** @typedef {{ section: string, note?: string }} SectionDef */
/** @typedef {Record<string, any>} AutomationView */

export const MODULES = ['Deals', 'Quotes', 'Leads', 'Contacts'];
const MATCH_KEYS = [
  ['job_number', 'job number'],
  ['email', 'customer e-mail'],
  ['phone', 'customer phone'],
];
/** Zoho's automations a write of crm-sync's may fire (record.yaml's `trigger`); all ticked is what Zoho does when none is sent. */
const ZOHO_TRIGGERS = [
  ['workflow', 'workflow rules'],
  ['approval', 'approval processes'],
  ['blueprint', 'blueprints'],
];
/** The choices of each field ticked as a group of checkboxes. */
const CHOICES = { keys: MATCH_KEYS, triggers: ZOHO_TRIGGERS };

/** @type {Record<AutomationCrm, Array<FieldDef | SectionDef>>} */
export const FIELDS = {
  appointment: [
    { name: 'create_projects', type: 'check', label: 'Create a project in the service for each new appointment that qualifies' },
    {
      name: 'statuses',
      type: 'list',
      label: 'Statuses that qualify',
      placeholder: 'any status',
      hint: 'Tick them from the CRM’s statuses, or type them separated by commas. Empty: every appointment qualifies.',
    },
    { name: 'owner', type: 'email', label: 'Default project owner', placeholder: 'e-mail of a user of the service', hint: 'Required to create projects.' },
    {
      name: 'owner_from_sales_rep',
      type: 'check',
      label: 'Make the appointment’s sales rep the owner (the default owner when the service does not know them)',
    },
    {
      name: 'start_from',
      type: 'time',
      label: 'Also read changes since (your local time)',
      hint: 'For appointments changed before creation was turned on. Empty: from when it was turned on.',
    },
    { section: 'Suggested mappings', note: 'For projects made in the service by hand: appointments that look like theirs.' },
    { name: 'match_on', type: 'keys', label: 'Suggest appointments with the same' },
    { name: 'auto_accept', type: 'check', label: 'Map without review when exactly one appointment matches' },
  ],
  record: [
    { name: 'create_projects', type: 'check', label: 'Create a project in the service for each new Zoho record that qualifies' },
    { name: 'module', type: 'module', label: 'Zoho module' },
    {
      name: 'field',
      type: 'text',
      label: 'Field that qualifies a record',
      placeholder: 'API name, e.g. Stage',
      hint: 'Choose it from the module’s fields (its API name fills in), or type it. None: every record.',
    },
    {
      name: 'values',
      type: 'list',
      label: 'Values that qualify',
      placeholder: 'e.g. Qualification, Needs Analysis',
      hint: 'Tick them from the field’s pick list, or type them separated by commas.',
    },
    { name: 'owner', type: 'email', label: 'Default project owner', placeholder: 'e-mail of a user of the service', hint: 'Required to create projects.' },
    {
      name: 'owner_from_sales_rep',
      type: 'check',
      label: 'Make the record’s owner in Zoho the project owner (the default owner when the service does not know them)',
    },
    {
      name: 'start_from',
      type: 'time',
      label: 'Also read changes since (your local time)',
      hint: 'For records changed before creation was turned on. Empty: from when it was turned on.',
    },
    { section: 'Suggested mappings', note: 'For projects made in the service by hand: Zoho records that look like theirs.' },
    { name: 'match_on', type: 'keys', label: 'Suggest records with the same' },
    {
      name: 'match_fields.job_number',
      type: 'text',
      label: 'Zoho field holding the job number',
      placeholder: 'API name, e.g. Job_Number',
      hint: 'Choose it from the module’s fields, or type its API name.',
    },
    { name: 'auto_accept', type: 'check', label: 'Map without review when exactly one record matches' },
    { section: 'Revenue in Zoho', note: 'What a proposal’s outcome writes to the mapped Deal.' },
    {
      name: 'deal_stage_on_approved',
      type: 'text',
      label: 'Deal stage when approved',
      placeholder: 'leave the stage as it is',
      hint: 'Choose it from the pipelines’ stages, or type it. The Amount and Closing Date are set too.',
    },
    {
      name: 'deal_stage_on_lost',
      type: 'text',
      label: 'Deal stage when lost or void',
      placeholder: 'leave the stage as it is',
      hint: 'Choose it from the pipelines’ stages, or type it.',
    },
    { name: 'quote_line_items', type: 'check', label: 'Send the drawing’s line items to a Zoho Quote' },
    {
      name: 'fallback_product_id',
      type: 'product',
      label: 'Zoho product for items without one',
      placeholder: 'none: such items are left out',
      hint: 'Type part of a product’s name or code and choose it, or paste its id.',
    },
    { name: 'trigger', type: 'triggers', label: 'Let crm-sync’s writes to Zoho run the org’s' },
  ],
};

/**
 * @param {AutomationView} view
 * @param {string} name
 */
function valueOf(view, name) {
  const [top, sub] = name.split('.');
  const value = view[top];
  return sub ? (value && typeof value === 'object' ? value[sub] : undefined) : value;
}

/**
 * A checkbox with its label and error line; the checkbox is `.input`.
 * @param {string} prefix
 * @param {FieldDef} def
 * @param {boolean} checked
 */
function checkbox(prefix, def, checked) {
  const wrap = /** @type {HTMLLabelElement & { input: HTMLInputElement }} */ (el('label', 'auto-check wide'));
  const input = /** @type {HTMLInputElement} */ (el('input'));
  input.type = 'checkbox';
  input.id = prefix + '-' + def.name;
  input.checked = checked;
  wrap.appendChild(input);
  wrap.appendChild(el('span', '', def.label));
  const error = el('span', 'field-error');
  error.id = input.id + '-error';
  wrap.appendChild(error);
  wrap.input = input;
  return wrap;
}

/**
 * A field's choices (match keys, Zoho triggers) as one checkbox each; the group carries the field's id so its error
 * is marked on it.
 * @param {string} prefix
 * @param {FieldDef} def
 * @param {unknown} value
 * @param {string[][]} choices
 */
function choiceBoxes(prefix, def, value, choices) {
  const chosen = Array.isArray(value) ? value.map(show) : [];
  const group = el('div', 'auto-keys wide');
  group.appendChild(el('span', 'conn-label', def.label));
  const row = el('div', 'auto-keys-row');
  row.id = prefix + '-' + def.name;
  row.setAttribute('role', 'group');
  for (const [key, words] of choices) {
    const label = el('label', 'auto-key');
    const input = /** @type {HTMLInputElement} */ (el('input'));
    input.type = 'checkbox';
    input.value = key;
    input.checked = chosen.indexOf(key) >= 0;
    label.appendChild(input);
    label.appendChild(el('span', '', words));
    row.appendChild(label);
  }
  group.appendChild(row);
  const error = el('span', 'field-error');
  error.id = row.id + '-error';
  group.appendChild(error);
  return group;
}

/**
 * @param {string} prefix
 * @param {FieldDef} def
 * @param {unknown} value
 */
function moduleSelect(prefix, def, value) {
  const wrap = el('label', 'conn-field');
  wrap.appendChild(el('span', 'conn-label', def.label));
  const select = /** @type {HTMLSelectElement} */ (el('select'));
  select.id = prefix + '-' + def.name;
  for (const m of MODULES) {
    const option = /** @type {HTMLOptionElement} */ (el('option', '', m));
    option.value = m;
    select.appendChild(option);
  }
  select.value = MODULES.indexOf(show(value)) >= 0 ? show(value) : 'Deals';
  wrap.appendChild(select);
  const error = el('span', 'field-error');
  error.id = select.id + '-error';
  wrap.appendChild(error);
  return wrap;
}

/**
 * Fills `fields` with the CRM's inputs, set to `view`; returns what reads them back as the PUT's body.
 * @param {HTMLElement} fields
 * @param {string} prefix
 * @param {AutomationCrm} crm
 * @param {AutomationView} view
 * @returns {() => Record<string, unknown>}
 */
export function buildFields(fields, prefix, crm, view) {
  /** @type {Array<[FieldDef, () => unknown]>} */
  const readers = [];
  for (const def of FIELDS[crm]) {
    if ('section' in def) {
      fields.appendChild(el('h4', 'auto-section wide', def.section));
      if (def.note) fields.appendChild(el('p', 'muted auto-note wide', def.note));
      continue;
    }
    const value = valueOf(view, def.name);
    if (def.type === 'check') {
      const box = checkbox(prefix, def, value === true);
      fields.appendChild(box);
      readers.push([def, () => box.input.checked]);
    } else if (def.type === 'keys' || def.type === 'triggers') {
      const group = choiceBoxes(prefix, def, value, CHOICES[def.type]);
      fields.appendChild(group);
      readers.push([def, () => [...group.querySelectorAll('input:checked')].map((i) => /** @type {HTMLInputElement} */ (i).value)]);
    } else if (def.type === 'module') {
      const wrap = moduleSelect(prefix, def, value);
      fields.appendChild(wrap);
      readers.push([def, () => /** @type {HTMLSelectElement} */ (wrap.querySelector('select')).value]);
    } else if (def.type === 'time') {
      const input = field(prefix, def.name, def.label, { hint: def.hint });
      input.input.type = 'datetime-local';
      input.input.value = localTime(value);
      const shown = input.input.value;
      // Unchanged, the stored time goes back as it is: a time that differs from it restarts the reading there.
      readers.push([def, () => (input.input.value === shown ? (value ?? null) : input.input.value ? new Date(input.input.value).toISOString() : null)]);
      fields.appendChild(input);
    } else {
      const text = def.type === 'list' ? (Array.isArray(value) ? value.map(show).join(', ') : '') : value === null || value === undefined ? '' : show(value);
      const input = field(prefix, def.name, def.label, {
        value: text,
        type: def.type === 'email' ? 'email' : 'text',
        placeholder: def.placeholder,
        hint: def.hint,
        mono: def.type === 'digits',
        wide: def.type === 'list',
      });
      if (def.type === 'digits') input.input.inputMode = 'numeric';
      fields.appendChild(input);
      if (def.type === 'product') {
        input.classList.add('picker');
        const products = picker(input.input, { minLength: 2, isId: (typed) => /^\d+$/.test(typed), changed: () => undefined, search: searchProducts });
        readers.push([def, () => readText(def.type, products.value())]);
      } else readers.push([def, () => readText(def.type, input.input.value)]);
    }
  }
  // The pickers read the CRMs' settings through admin routes; others see the saved values, as typed (docs/automations.md).
  if (can('admin') && crm === 'record') wireZohoPickers(fields, prefix);
  else if (can('admin')) wireStatusPicker(fields, prefix);
  return () => {
    /** @type {Record<string, any>} */
    const body = {};
    for (const [def, read] of readers) {
      const [top, sub] = def.name.split('.');
      if (sub) body[top] = Object.assign(body[top] || {}, read() === null ? {} : { [sub]: read() });
      else body[top] = read();
    }
    return body;
  };
}

/**
 * Zoho Products matching the words typed (`GET /api/search/crm-records?crm=record&module=Products`).
 * @param {string} q
 * @returns {Promise<import('./picker.js').Choice[]>}
 */
function searchProducts(q) {
  return api('GET', '/api/search/crm-records' + query({ crm: 'record', module: 'Products', q })).then(
    (/** @type {{ items: import('./api.js').Schemas['CrmRecordHitView'][] } | null} */ res) =>
      (res && Array.isArray(res.items) ? res.items : []).map((r) => ({ id: show(r.id), name: r.name, detail: r.detail })),
  );
}

/**
 * An ISO time as a datetime-local input's value (local, to the minute); '' for none.
 * @param {unknown} iso
 */
function localTime(iso) {
  const d = new Date(typeof iso === 'string' ? iso : NaN);
  if (isNaN(d.getTime())) return '';
  /** @param {number} n */
  const pad = (n) => String(n).padStart(2, '0');
  return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + 'T' + pad(d.getHours()) + ':' + pad(d.getMinutes());
}

/**
 * @param {FieldType} type
 * @param {string} raw
 */
function readText(type, raw) {
  const text = raw.trim();
  if (type === 'list')
    return [
      ...new Set(
        text
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ];
  return text === '' ? null : text;
}

/** The daemon's words for a refused field, said for someone setting up their CRM (its text when none fits). */
/** @type {Record<string, string>} */
const WORDS = {
  'owner:required': 'Enter the default project owner: projects cannot be created without one.',
  'owner:isEmail': 'Enter the e-mail address of a user of the service.',
  'field:required': 'Name the Zoho field whose value qualifies a record (e.g. Stage), or empty the values.',
  'field:isZohoField': 'Enter the field’s API name as Zoho shows it: letters, digits and _ (e.g. Stage).',
  'match_fields.job_number:isZohoField': 'Enter the field’s API name as Zoho shows it: letters, digits and _ (e.g. Job_Number).',
  'fallback_product_id:isDigits': 'A Zoho product id is made of digits only.',
  'start_from:maxDate': 'Choose a time in the past.',
};

/**
 * @param {{ field?: unknown, code?: unknown, message?: unknown }} e
 */
export function refusalWords(e) {
  const words = WORDS[show(e.field) + ':' + show(e.code)];
  return words || show(e.message).replace(/^./, (c) => c.toUpperCase()) + '.';
}
