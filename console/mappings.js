// @ts-check
/**
 * The Mappings screen: filters, paging, delete (after a confirmation) and "Associate pending now"; the add form and
 * the CSV import are in mapping-forms.js.
 */
import { AuthError, api, describe, failed } from './api.js';
import { $, clearFields, badge, can, confirmInline, crmRecordOf, el, emptyRow, inlineMessage, notify, projectLink, show, td, timeCell } from './dom.js';
import { PagedList } from './list.js';
import { initMappingForms } from './mapping-forms.js';

const STATUSES = ['pending', 'associated', 'failed'];

/**
 * Wires the tab up. `refreshAll` reloads the page's data, `loadCounters` the header's counters, `signedIn` says
 * whether a delayed refresh still makes sense. Returns `load(more)` for the page's refresh.
 */
/** A mapping as the API answers it. @typedef {{ id: string, crm: string, appointment_id: string | null, record_crm_module: string | null, record_crm_record_id: string | null, crm_record_name?: string | null, project_id: string, project_name?: string | null, status: string, error: string | null, created_at: string, updated_at: string }} Mapping */

/** @param {{ refreshAll: () => void, loadCounters: () => void, signedIn: () => boolean }} hooks */
export function initMappings({ refreshAll, loadCounters, signedIn }) {
  const list = new PagedList('/api/mappings', 'map-more', render, 'Loading the mappings failed');
  /** @param {boolean} [more] */
  const load = (more) => list.load(more);

  function readFilters() {
    const project = $('map-project', HTMLInputElement).value.trim();
    if (project && !/^\d+$/.test(project)) {
      notify('error', 'The project id is a string of digits.');
      return null;
    }
    return { crm: $('map-crm', HTMLSelectElement).value, status: $('map-status', HTMLSelectElement).value, project_id: project };
  }

  function applyFilters() {
    const filters = readFilters();
    if (filters) list.reset(filters);
  }

  $('map-filters', HTMLFormElement).addEventListener('submit', (ev) => {
    ev.preventDefault();
    applyFilters();
  });
  $('map-crm', HTMLSelectElement).addEventListener('change', applyFilters);
  $('map-status', HTMLSelectElement).addEventListener('change', applyFilters);
  $('map-clear', HTMLButtonElement).addEventListener('click', () => {
    clearFields(['map-crm', 'map-status', 'map-project']);
    applyFilters();
  });
  $('map-more', HTMLButtonElement).addEventListener('click', () => load(true));

  function render() {
    const body = $('map-rows');
    body.replaceChildren();
    if (list.items.length === 0) emptyRow(body, 'No mappings match these filters.', 9);
    for (const m of list.items) {
      const tr = el('tr');
      tr.dataset.id = m.id;
      tr.dataset.status = m.status;
      tr.appendChild(td(m.id, 'mono nowrap'));
      tr.appendChild(td(show(m.crm)));
      const source = td('', 'record');
      source.appendChild(crmRecordOf(m));
      tr.appendChild(source);
      const project = td('', 'project');
      project.appendChild(projectLink(m.project_id, m.project_name));
      tr.appendChild(project);
      const st = el('td');
      st.appendChild(badge(m.status, STATUSES));
      tr.appendChild(st);
      tr.appendChild(td(m.error ? show(m.error) : '', 'err wrap'));
      tr.appendChild(timeCell(m.created_at));
      tr.appendChild(timeCell(m.updated_at));
      const actions = el('td', 'actions-cell');
      if (can('operator')) {
        const del = el('button', 'danger small', 'Delete');
        del.type = 'button';
        del.dataset.action = 'delete';
        del.addEventListener('click', () => removeMapping(m, del));
        actions.appendChild(del);
      }
      tr.appendChild(actions);
      body.appendChild(tr);
    }
    $('map-more', HTMLButtonElement).hidden = !list.next;
    $('map-count').textContent = list.items.length + (list.items.length === 1 ? ' mapping' : ' mappings') + (list.next ? ' shown' : '');
  }

  /**
   * @param {Mapping} m
   * @param {HTMLButtonElement} button
   */
  function removeMapping(m, button) {
    const project = m.project_name ? show(m.project_name) + ' ' + show(m.project_id) : show(m.project_id);
    const what = 'Delete mapping ' + show(m.id) + ' (' + show(m.crm) + ', project ' + project + ')?';
    confirmInline(button, what, 'Delete').then((yes) => {
      if (!yes) return;
      button.disabled = true;
      api('DELETE', '/api/mappings/' + encodeURIComponent(show(m.id))).then(
        () => {
          notify('ok', 'Mapping ' + show(m.id) + ' deleted.');
          load(false);
        },
        (err) => {
          button.disabled = false;
          if (!(err instanceof AuthError)) inlineMessage(button, 'error', describe(err));
        },
      );
    });
  }

  initMappingForms({ created: () => load(false) });

  $('associate-button', HTMLButtonElement).addEventListener('click', () => {
    const button = $('associate-button', HTMLButtonElement);
    button.disabled = true;
    api('POST', '/api/mappings/associate')
      .then(
        (res) => {
          const ids = res && Array.isArray(res.sync_log_ids) ? res.sync_log_ids.map(show) : [];
          notify(
            'ok',
            ids.length
              ? 'Associating pending mappings: ' + ids.length + ' action(s) started (sync log ' + ids.join(', ') + ').'
              : 'No pending mappings to associate.',
          );
          setTimeout(() => {
            if (signedIn()) refreshAll();
          }, 1500);
        },
        (err) => (err.status === 403 ? inlineMessage(button, 'error', describe(err)) : failed('Associating pending mappings failed')(err)),
      )
      .then(() => {
        button.disabled = false;
        load(false);
        loadCounters();
      });
  });

  return { show: () => load(false), load };
}
