// @ts-check
/**
 * The Automations screen's Zoho pickers (`GET /api/crm-metadata/record-crm/…`): the module by the org's label
 * (`modules`), the qualifying field and the job-number field chosen from the module's fields (`fields?module=`, by
 * label, API name beside), the qualifying values ticked from the chosen field's pick list, or for the Deals' Stage
 * from each pipeline's stages, grouped (`pipelines`). Each picker sits beside the input it fills, which stays (typing
 * is still possible, for a field Zoho does not list); a value that is not among Zoho's fields, pick list or stages
 * says so beside it.
 */
import { api, describe, query } from './api.js';
import { el } from './dom.js';
import { pipelineName, stageLabel, wireDealStagePickers } from './deal-stage-pickers.js';

/** @typedef {{ api_name: string, label: string, data_type: string, pick_list: Array<{ value: string, label: string }> | null }} ZohoField */
/** @typedef {import('./deal-stage-pickers.js').Pipeline} Pipeline */
/** @typedef {{ api_name: string, label: string, in_org: boolean }} ZohoModule */

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
  const valuesNote = el('span', 'field-note');
  valuesNote.id = prefix + '-values-note';
  boxes.after(valuesNote);
  /** @type {ZohoField[] | null} */
  let listed = null;
  /** The Deals' pipelines once read; an Error when Zoho could not list them. @type {Pipeline[] | Error | null} */
  let pipelines = null;
  /** @type {Promise<Pipeline[]> | null} */
  let pipelinesRead = null;
  /** The Deals' pipelines, read once for the screen (the Stage's values, the revenue's stages). */
  const readPipelines = () =>
    pipelinesRead ||
    (pipelinesRead = api('GET', '/api/crm-metadata/record-crm/pipelines').then(
      /** @param {{ items?: Pipeline[] } | null} res */ (res) => (res && Array.isArray(res.items) ? res.items : []),
    ));
  labelModules(/** @type {HTMLSelectElement} */ (moduleSelect));
  wireDealStagePickers(fields, prefix, readPipelines);

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

  /** The chosen field's pick list as checkboxes, each in step with the values' input; the Deals' Stage by pipeline. */
  function drawValues() {
    valuesNote.textContent = '';
    const chosen = listed && fieldInput ? listed.find((f) => f.api_name === fieldInput.value.trim()) : undefined;
    if (!chosen || !valuesInput) return boxes.replaceChildren();
    if (moduleSelect && moduleSelect.value === 'Deals' && chosen.api_name === 'Stage') {
      if (pipelines === null) {
        boxes.replaceChildren();
        return void readPipelines().then(
          (read) => {
            pipelines = read;
            drawValues();
          },
          (err) => {
            pipelines = err instanceof Error ? err : new Error(String(err));
            drawValues();
          },
        );
      } else if (pipelines instanceof Error) {
        // The stages of each pipeline cannot be read (e.g. a connection without the layouts scope): the pick list, flat.
        valuesNote.textContent = 'Zoho’s pipelines could not be read (' + describe(pipelines) + '): all stages are listed together.';
      } else if (pipelines.length > 0) {
        const all = pipelines;
        const groups = pipelines.map((p) => ({
          name: pipelineName(p, all),
          options: p.stages.map((st) => ({ value: st.value, label: stageLabel(st) })),
        }));
        return drawChecks(boxes, valuesInput, groups, 'no longer in Zoho');
      }
    }
    if (!chosen.pick_list || chosen.pick_list.length === 0) return boxes.replaceChildren();
    drawChecks(boxes, valuesInput, [{ name: null, options: chosen.pick_list }], 'no longer in Zoho');
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
 * The groups' options as checkboxes in `boxes` (a group with a name under its heading), each in step with the
 * comma-separated `valuesInput`: a value offered in two groups (a stage of two pipelines) is one value, ticked in both.
 * A value of the input that is not among them stays ticked, marked `(<goneWords>)`.
 * @param {HTMLElement} boxes
 * @param {HTMLInputElement} valuesInput
 * @param {Array<{ name: string | null, options: Array<{ value: string, label: string }> }>} groups
 * @param {string} goneWords
 */
export function drawChecks(boxes, valuesInput, groups, goneWords) {
  boxes.replaceChildren();
  const current = splitList(valuesInput.value);
  const known = groups.flatMap((g) => g.options.map((p) => p.value.toLowerCase()));
  const isCurrent = (/** @type {string} */ value) => current.some((c) => c.toLowerCase() === value.toLowerCase());
  /** @param {HTMLElement} into @param {string} value @param {string} label @param {boolean} checked */
  const box = (into, value, label, checked) => {
    const wrap = el('label', 'auto-key');
    const input = /** @type {HTMLInputElement} */ (el('input'));
    input.type = 'checkbox';
    input.value = value;
    input.checked = checked;
    input.addEventListener('change', () => {
      const all = /** @type {HTMLInputElement[]} */ ([...boxes.querySelectorAll('input[type="checkbox"]')]);
      for (const same of all) if (same.value === value) same.checked = input.checked;
      valuesInput.value = [...new Set(all.filter((i) => i.checked).map((i) => i.value))].join(', ');
    });
    wrap.appendChild(input);
    wrap.appendChild(el('span', '', label));
    into.appendChild(wrap);
    return wrap;
  };
  for (const group of groups) {
    let into = boxes;
    if (group.name !== null) {
      into = el('div', 'zoho-values-group');
      into.setAttribute('role', 'group');
      into.dataset.group = group.name;
      into.appendChild(el('span', 'zoho-values-heading', group.name));
      boxes.appendChild(into);
    }
    for (const p of group.options) box(into, p.value, p.label, isCurrent(p.value));
  }
  for (const gone of current.filter((c) => known.indexOf(c.toLowerCase()) < 0)) box(boxes, gone, gone + ' (' + goneWords + ')', true).classList.add('gone');
}

/**
 * The module select's options by the org's labels, API name beside (`GET /api/crm-metadata/record-crm/modules`); a
 * module the org lacks is marked and cannot be chosen (the one saved earlier stays chosen). Zoho not answering: the
 * API names stay.
 * @param {HTMLSelectElement} select
 */
function labelModules(select) {
  void api('GET', '/api/crm-metadata/record-crm/modules').then(
    /** @param {{ items?: ZohoModule[] } | null} res */
    (res) => {
      for (const m of res && Array.isArray(res.items) ? res.items : []) {
        const option = /** @type {HTMLOptionElement | undefined} */ ([...select.options].find((o) => o.value === m.api_name));
        if (!option) continue;
        option.textContent = m.label + ' (' + m.api_name + ')' + (m.in_org ? '' : ' · not in this Zoho org');
        option.classList.toggle('gone', !m.in_org);
        option.disabled = !m.in_org && select.value !== m.api_name;
      }
    },
    () => {
      // Zoho cannot list now: the modules stay by their API names.
    },
  );
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
