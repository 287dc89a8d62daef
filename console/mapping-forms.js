// @ts-check
/**
 * The Mappings screen's forms: add one mapping (`POST /api/mappings`; a 400 or 409 is shown next to the field the
 * daemon names in `errors[].field` or `field`) and import a CSV file (`POST /api/mappings/import`, text/csv; the per-line results as a table).
 * Adding picks both sides by name: the project (`GET /api/search/projects`) and the appointment or Zoho record
 * (`GET /api/search/crm-records`); what will be linked is shown before it is confirmed. Ids can still be pasted.
 */
import { ApiError, AuthError, api, describe, query } from './api.js';
import { $, clearFields, el, inlineMessage, namedId, show, table, td } from './dom.js';
import { picker } from './picker.js';

const FIELDS = ['appointment_id', 'record_crm_module', 'record_crm_record_id', 'project_id'];
const MAX_CSV_BYTES = 50 * 1024 * 1024;

/**
 * The form's field a refusal is about: a 400's first refused field, or the field a 409's mapping holds already.
 * @param {unknown} err
 * @returns {string | null}
 */
function fieldOf(err) {
  if (!(err instanceof ApiError) || !err.data || typeof err.data !== 'object') return null;
  /** @type {{ errors?: Array<{ field?: unknown }>, field?: unknown }} */
  const data = err.data;
  const named = err.status === 400 && Array.isArray(data.errors) && data.errors[0] ? data.errors[0].field : err.status === 409 ? data.field : null;
  return FIELDS.find((f) => f === named) || null;
}

/** @typedef {import('./api.js').Schemas} Schemas */

/**
 * The items of a list answer.
 * @template T
 * @param {{ items: T[] } | null} res
 * @returns {T[]}
 */
const listOf = (res) => (res && Array.isArray(res.items) ? res.items : []);

/** @param {{ created: () => void }} hooks */
export function initMappingForms({ created }) {
  const form = $('map-add', HTMLFormElement);

  function crmChanged() {
    const crm = $('add-crm', HTMLSelectElement).value;
    for (const label of form.querySelectorAll('label[data-for]')) if (label instanceof HTMLElement) label.hidden = label.dataset.for !== crm;
    clearErrors();
  }
  $('add-crm', HTMLSelectElement).addEventListener('change', crmChanged);

  const digits = (/** @type {string} */ typed) => /^\d+$/.test(typed);
  const projects = picker($('add-project_id', HTMLInputElement), {
    minLength: 2,
    isId: digits,
    changed: preview,
    search: (q) =>
      api('GET', '/api/search/projects' + query({ q })).then((/** @type {{ items: Schemas['ProjectHitView'][] }} */ res) =>
        listOf(res).map((p) => ({ id: show(p.id), name: p.name, detail: p.customer_name ? 'Customer: ' + show(p.customer_name) : null })),
      ),
  });
  /**
   * @param {'appointment' | 'record'} crm
   * @returns {(q: string) => Promise<import('./picker.js').Choice[]>}
   */
  const recordSearch = (crm) => (q) =>
    api('GET', '/api/search/crm-records' + query({ crm, module: crm === 'record' ? $('add-record_crm_module', HTMLSelectElement).value : '', q })).then(
      (/** @type {{ items: Schemas['CrmRecordHitView'][] }} */ res) => listOf(res).map((r) => ({ id: show(r.id), name: r.name, detail: r.detail })),
    );
  const appointments = picker($('add-appointment_id', HTMLInputElement), { minLength: 2, isId: digits, changed: preview, search: recordSearch('appointment') });
  const records = picker($('add-record_crm_record_id', HTMLInputElement), { minLength: 2, isId: digits, changed: preview, search: recordSearch('record') });
  $('add-record_crm_module', HTMLSelectElement).addEventListener('change', () => {
    records.reset();
    $('add-record_crm_record_id', HTMLInputElement).value = '';
    preview();
  });
  $('add-crm', HTMLSelectElement).addEventListener('change', preview);

  /** The CRM side's picker for the CRM chosen. */
  const recordPicker = () => ($('add-crm', HTMLSelectElement).value === 'record' ? records : appointments);

  /** What will be linked, once both sides are filled: names when they were picked, ids as typed otherwise. */
  function preview() {
    const box = $('add-preview');
    const crm = $('add-crm', HTMLSelectElement).value;
    const side = recordPicker();
    const [project, record] = [projects.value(), side.value()];
    box.hidden = !project || !record;
    if (box.hidden) return box.replaceChildren();
    const recordId = crm === 'record' ? $('add-record_crm_module', HTMLSelectElement).value + ' / ' + record : record;
    box.replaceChildren(
      el('span', '', 'Will link ' + (crm === 'record' ? 'Zoho record ' : 'appointment ')),
      namedId(side.chosen()?.name ?? null, recordId),
      el('span', '', ' with project '),
      namedId(projects.chosen()?.name ?? null, project),
    );
  }

  function clearErrors() {
    for (const f of FIELDS) {
      $('add-' + f + '-error').textContent = '';
      $('add-' + f).removeAttribute('aria-invalid');
    }
    $('add-message').replaceChildren();
  }

  /**
   * @param {string} field
   * @param {string} text
   */
  function fieldError(field, text) {
    $('add-' + field + '-error').textContent = text;
    $('add-' + field).setAttribute('aria-invalid', 'true');
    $('add-' + field).focus();
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    clearErrors();
    const crm = $('add-crm', HTMLSelectElement).value;
    /** @type {Record<string, string>} */
    const body = { crm, project_id: projects.value() };
    if (crm === 'appointment') body.appointment_id = appointments.value();
    else {
      body.record_crm_module = $('add-record_crm_module', HTMLSelectElement).value;
      body.record_crm_record_id = records.value();
    }
    const pickedName = recordPicker().chosen()?.name;
    if (pickedName) body.crm_record_name = pickedName;
    const button = $('add-submit', HTMLButtonElement);
    button.disabled = true;
    api('POST', '/api/mappings', body)
      .then(
        (m) => {
          $('add-message').replaceChildren(el('span', 'inline-msg ok', 'Mapping ' + show(m && m.id) + ' created (' + show(m && m.status) + ').'));
          clearFields(['add-appointment_id', 'add-record_crm_record_id', 'add-project_id']);
          for (const p of [projects, appointments, records]) p.reset();
          preview();
          created();
        },
        (err) => {
          if (err instanceof AuthError) return;
          const field = fieldOf(err);
          if (field) fieldError(field, err.message);
          else $('add-message').replaceChildren(el('span', 'inline-msg error', 'Not created: ' + describe(err)));
        },
      )
      .then(() => {
        button.disabled = false;
      });
  });

  const importForm = $('map-import', HTMLFormElement);
  const results = $('import-results');
  importForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const file = ($('import-file', HTMLInputElement).files || [])[0];
    const button = $('import-submit', HTMLButtonElement);
    if (!file) {
      inlineMessage(button, 'error', 'Choose a CSV file first.');
      return;
    }
    if (file.size > MAX_CSV_BYTES) {
      inlineMessage(button, 'error', 'That file is over 50 MB.');
      return;
    }
    button.disabled = true;
    results.replaceChildren(el('p', 'muted', 'Uploading ' + file.name + '…'));
    file
      .text()
      .then((text) => api('POST', '/api/mappings/import', { text, type: 'text/csv' }))
      .then(
        (res) => {
          renderResults(file.name, res || {});
          created();
        },
        (err) => {
          results.replaceChildren();
          if (!(err instanceof AuthError)) inlineMessage(button, 'error', 'Import failed: ' + describe(err));
        },
      )
      .then(() => {
        button.disabled = false;
      });
  });

  /**
   * @param {string} name the file's
   * @param {{ created?: number, errors?: number, items?: Array<{ line: number | string, status: string, mapping_id?: string, error?: string }> }} res
   */
  function renderResults(name, res) {
    results.replaceChildren();
    const items = Array.isArray(res.items) ? res.items : [];
    const summary = el('p', 'import-summary ' + (res.errors ? 'partial' : 'all-ok'));
    summary.id = 'import-summary';
    summary.textContent = name + ': ' + show(res.created) + ' created, ' + show(res.errors) + ' refused.';
    results.appendChild(summary);
    if (items.length === 0) return;
    const { table: t, body } = table(['#Line', 'Result', 'Mapping', 'Error'], 'import-table');
    // The refused rows first: they are what needs attention.
    const rows = items.slice().sort((a, b) => Number(b.status === 'error') - Number(a.status === 'error') || Number(a.line) - Number(b.line));
    for (const r of rows.slice(0, 500)) {
      const tr = el('tr', r.status === 'error' ? 'line-error' : 'line-ok');
      tr.dataset.line = show(r.line);
      tr.appendChild(td(show(r.line), 'num mono'));
      const st = el('td');
      st.appendChild(el('span', 'badge ' + (r.status === 'error' ? 's-failed' : 's-succeeded'), show(r.status)));
      tr.appendChild(st);
      tr.appendChild(td(show(r.mapping_id), 'mono'));
      tr.appendChild(td(r.error ? show(r.error) : '', 'err wrap'));
      body.appendChild(tr);
    }
    const wrap = el('div', 'import-scroll');
    wrap.appendChild(t);
    results.appendChild(wrap);
    if (items.length > 500) results.appendChild(el('p', 'muted', 'The first 500 of ' + items.length + ' lines are shown, refused ones first.'));
  }
}
