// @ts-check
/**
 * The Automations screen's revenue stages (`deal_stage_on_approved`, `deal_stage_on_lost`) chosen from the stages of the
 * Deals' pipelines (`GET /api/crm-metadata/record-crm/pipelines`), grouped by pipeline. The input stays beside (typed
 * when Zoho cannot list them); a stage that no pipeline has is shown as such.
 */
import { el } from './dom.js';

/** @typedef {{ layout: { id: string, name: string }, name: string, default: boolean, stages: Array<{ value: string, sequence: number, forecast_type: string }> }} Pipeline */

const STAGE_FIELDS = ['deal_stage_on_approved', 'deal_stage_on_lost'];

/**
 * @param {HTMLElement} fields the form's fieldset
 * @param {string} prefix
 * @param {() => Promise<Pipeline[]>} readPipelines
 */
export function wireDealStagePickers(fields, prefix, readPipelines) {
  for (const name of STAGE_FIELDS) {
    const input = /** @type {HTMLInputElement | null} */ (fields.querySelector('#' + window.CSS.escape(prefix + '-' + name)));
    if (!input) continue;
    const pick = /** @type {HTMLSelectElement} */ (el('select', 'zoho-field-pick'));
    pick.id = input.id + '-pick';
    pick.hidden = true;
    input.before(pick);
    const words = el('span', 'field-note');
    words.id = input.id + '-note';
    (input.closest('label') || input).appendChild(words);
    readPipelines().then(
      (pipelines) => {
        if (pipelines.length === 0) return;
        const draw = () => {
          const gone = fillStages(pick, pipelines, input.value.trim());
          words.textContent = gone ? 'No pipeline in Zoho has this stage.' : '';
        };
        pick.hidden = false;
        pick.addEventListener('change', () => {
          input.value = pick.value;
          draw();
        });
        input.addEventListener('change', draw);
        draw();
      },
      () => {
        // Zoho cannot list them now: the stage is typed.
      },
    );
  }
}

/**
 * A stage as the pickers show it: its value, and what it forecasts when it closes the Deal (`Won Install · Closed Won`).
 * @param {{ value: string, forecast_type: string }} stage
 */
export function stageLabel(stage) {
  return stage.value + (stage.forecast_type !== 'Open' && stage.forecast_type !== stage.value ? ' · ' + stage.forecast_type : '');
}

/**
 * A pipeline's name, with its layout's when the Deals have more than one layout (each has pipelines of its own).
 * @param {Pipeline} pipeline
 * @param {Pipeline[]} all
 */
export function pipelineName(pipeline, all) {
  return pipeline.name + (all.some((p) => p.layout.id !== pipeline.layout.id) ? ' (' + pipeline.layout.name + ' layout)' : '');
}

/**
 * The pipelines' stages as options, a group per pipeline; the stage saved earlier stays chosen, marked when no
 * pipeline has it. Answers whether it is gone.
 * @param {HTMLSelectElement} select
 * @param {Pipeline[]} pipelines
 * @param {string} current
 */
function fillStages(select, pipelines, current) {
  select.replaceChildren();
  /** @param {HTMLElement} into @param {string} value @param {string} text */
  const option = (into, value, text) => {
    const o = /** @type {HTMLOptionElement} */ (el('option', '', text));
    o.value = value;
    into.appendChild(o);
    return o;
  };
  option(select, '', 'leave the stage as it is');
  for (const p of pipelines) {
    const group = /** @type {HTMLOptGroupElement} */ (el('optgroup'));
    group.label = pipelineName(p, pipelines);
    for (const st of p.stages)
      option(group, st.value, st.value + (st.forecast_type !== 'Open' && st.forecast_type !== st.value ? ' · ' + st.forecast_type : ''));
    select.appendChild(group);
  }
  const gone = current !== '' && !pipelines.some((p) => p.stages.some((st) => st.value === current));
  if (gone) option(select, current, current + ' (no such stage in Zoho)').className = 'gone';
  select.value = current;
  return gone;
}
