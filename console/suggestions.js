// @ts-check
/**
 * The Suggestions screen (`GET /api/suggestions`): for each project the service reports with no mapping, the CRM
 * records with its job number, customer e-mail or phone. Accept (choosing a candidate when there are several) makes
 * the mapping and starts its association (`POST /api/suggestions/:id/accept`); Dismiss closes it for good.
 */
import { ApiError, AuthError, api, describe, query } from './api.js';
import { $, badge, can, confirmInline, el, fmtTime, inlineMessage, namedId, projectLink, show, webLink } from './dom.js';

/**
 * A suggestion and its candidates as the API answers them (api-types.d.ts, from the OpenAPI document).
 * @typedef {import('./api.js').Schemas['CandidateView']} Candidate
 * @typedef {import('./api.js').Schemas['SuggestionView']} Suggestion
 */

const MATCHED = /** @type {Record<string, string>} */ ({ job_number: 'job number', email: 'e-mail', phone: 'phone' });

export function initSuggestions() {
  const body = $('suggestions-body');
  let gen = 0;

  /** @param {Suggestion} s */
  function card(s) {
    const box = el('div', 'card suggestion');
    box.dataset.id = show(s.id);
    box.dataset.project = show(s.project_id);
    const head = el('div', 'suggestion-head');
    head.appendChild(el('span', 'muted', 'Project'));
    head.appendChild(projectLink(s.project_id, s.project_name));
    head.appendChild(el('span', 'muted', s.crm === 'record' ? 'in Zoho CRM' : 'in the appointment CRM'));
    head.appendChild(el('div', 'grow'));
    head.appendChild(badge(show(s.status), null));
    head.appendChild(el('span', 'muted', fmtTime(s.created_at)));
    box.appendChild(head);

    const list = el('ul', 'candidates');
    const open = s.status === 'open';
    const choose = open && s.candidates.length > 1;
    s.candidates.forEach((c, i) => {
      const li = el('li', 'candidate');
      li.dataset.id = show(c.id);
      const label = el('label', 'candidate-label');
      if (choose) {
        const radio = el('input');
        radio.type = 'radio';
        radio.name = 'candidate-' + show(s.id);
        radio.value = show(c.id);
        radio.checked = i === 0;
        label.appendChild(radio);
      }
      label.appendChild(namedId(c.name, c.module ? show(c.module) + ' / ' + show(c.id) : show(c.id)));
      const opens = webLink(c.web_url, s.crm);
      if (opens) label.appendChild(opens);
      const why = el('span', 'matched');
      why.appendChild(document.createTextNode('same '));
      why.appendChild(el('strong', '', c.matched_on.map((k) => MATCHED[k] || k).join(', ')));
      label.appendChild(why);
      const shared = c.shared_on || [];
      if (shared.length > 0) {
        label.appendChild(el('span', 'matched warn', 'also held by another project or record: ' + shared.map((k) => MATCHED[k] || k).join(', ')));
      }
      if (c.names_alike === false) label.appendChild(el('span', 'matched muted', 'names differ'));
      li.appendChild(label);
      list.appendChild(li);
    });
    box.appendChild(list);

    if (s.status === 'changed') {
      box.appendChild(
        el('p', 'muted', 'The project or the record changed since they were found: not mapped. A new look follows the next change of the project.'),
      );
    }
    if ((open || s.status === 'changed') && can('operator')) {
      const actions = el('div', 'form-actions');
      const accept = el('button', 'primary', s.candidates.length > 1 ? 'Map the chosen record' : 'Map this record');
      accept.type = 'button';
      accept.dataset.action = 'accept';
      accept.addEventListener('click', () => {
        const picked = box.querySelector('input[type="radio"]:checked');
        const candidate = picked instanceof HTMLInputElement ? picked.value : show(s.candidates[0] && s.candidates[0].id);
        accept.disabled = true;
        api('POST', '/api/suggestions/' + encodeURIComponent(show(s.id)) + '/accept', { candidate }).then(
          (m) => {
            inlineMessage(accept, 'ok', 'Mapping ' + show(m && m.id) + ' made; its association has started.');
            setTimeout(() => void showScreen('', true), 1500);
          },
          (err) => {
            accept.disabled = false;
            if (!(err instanceof AuthError)) inlineMessage(accept, 'error', 'Not mapped: ' + describe(err));
          },
        );
      });
      const dismiss = el('button', '', 'Dismiss');
      dismiss.type = 'button';
      dismiss.dataset.action = 'dismiss';
      dismiss.addEventListener('click', () => {
        void confirmInline(dismiss, 'Dismiss for good? This project will not be suggested in this CRM again.', 'Dismiss').then((yes) => {
          if (!yes) return;
          api('POST', '/api/suggestions/' + encodeURIComponent(show(s.id)) + '/dismiss').then(
            () => void showScreen('', true),
            (err) => {
              if (!(err instanceof AuthError)) inlineMessage(dismiss, 'error', 'Not dismissed: ' + describe(err));
            },
          );
        });
      });
      if (open) actions.appendChild(accept);
      actions.appendChild(dismiss);
      box.appendChild(actions);
    } else if (s.mapping_id) {
      box.appendChild(
        el('p', 'muted', 'Mapping ' + show(s.mapping_id) + (s.decided_by ? ', by ' + show(s.decided_by) : ', made without review (auto_accept)') + '.'),
      );
    }
    return box;
  }

  /**
   * @param {string} _arg
   * @param {boolean} [refresh]
   */
  function showScreen(_arg, refresh) {
    const mine = ++gen;
    const status = $('suggestions-status', HTMLSelectElement).value;
    if (!refresh) body.replaceChildren(el('p', 'muted loading', 'Loading suggestions…'));
    return api('GET', '/api/suggestions' + query({ status, limit: 200 })).then(
      (/** @type {import('./api.js').Page<Suggestion>} */ page) => {
        if (mine !== gen) return;
        /** @type {Suggestion[]} */
        const items = page && Array.isArray(page.items) ? page.items : [];
        body.replaceChildren();
        if (items.length === 0) {
          const none =
            status === 'open'
              ? 'No open suggestion. Projects the service reports with no mapping are matched with CRM records as the automation settings say (match_on).'
              : 'No ' + status + ' suggestion.';
          body.appendChild(el('p', 'muted empty-note', none));
        }
        for (const s of items) body.appendChild(card(s));
      },
      (err) => {
        if (mine !== gen || err instanceof AuthError) return;
        const missing = err instanceof ApiError && err.routeMissing;
        body.replaceChildren(el('div', 'unavailable ' + (missing ? 'info' : 'error'), 'Suggestions ' + (missing ? 'are ' : 'failed: ') + describe(err)));
      },
    );
  }

  $('suggestions-status', HTMLSelectElement).addEventListener('change', () => void showScreen('', false));
  return { show: showScreen };
}
