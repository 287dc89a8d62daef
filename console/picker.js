// @ts-check
/**
 * A search-as-you-type picker over an input of a form: typing part of a name searches (debounced, so a search runs
 * when typing pauses, not per key), the answers are listed under the input, and choosing one fills the input with its
 * name and keeps its id. Whatever is typed without a choice (an id pasted) is taken as it is.
 */
import { AuthError, describe } from './api.js';
import { el, show } from './dom.js';

/** How long typing must pause before a search runs. */
export const SEARCH_DEBOUNCE_MS = 300;

/** One answer of a search. @typedef {{ id: string, name: string | null, detail?: string | null }} Choice */

/**
 * @param {HTMLInputElement} input
 * @param {{ search: (q: string) => Promise<Choice[]>, minLength: number, isId: (typed: string) => boolean, changed: () => void }} options
 *   `isId`: what is typed is an id, not words to search for
 */
export function picker(input, options) {
  const list = el('ul', 'picker-results');
  list.id = input.id + '-results';
  list.setAttribute('role', 'listbox');
  list.hidden = true;
  input.setAttribute('autocomplete', 'off');
  input.setAttribute('aria-controls', list.id);
  input.after(list);
  /** @type {Choice | null} */
  let chosen = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let generation = 0;

  function close() {
    generation++;
    clearTimeout(timer);
    list.hidden = true;
    list.replaceChildren();
  }

  input.addEventListener('input', () => {
    chosen = null;
    options.changed();
    close();
    const typed = input.value.trim();
    if (typed.length < options.minLength || options.isId(typed)) return;
    timer = setTimeout(() => run(typed), SEARCH_DEBOUNCE_MS);
  });
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') close();
    if (ev.key === 'ArrowDown') list.querySelector('button')?.focus();
  });
  // Leaving the picker (for the submit button, another field) closes its answers; moving into them does not.
  /** @param {FocusEvent} ev */
  const left = (ev) => {
    const to = ev.relatedTarget;
    if (!(to instanceof Node) || (to !== input && !list.contains(to))) close();
  };
  input.addEventListener('blur', left);
  list.addEventListener('focusout', left);

  /** @param {string} typed */
  function run(typed) {
    const mine = ++generation;
    list.hidden = false;
    list.replaceChildren(el('li', 'muted picker-note', 'Searching…'));
    options.search(typed).then(
      (items) => {
        if (mine === generation) render(items);
      },
      (err) => {
        if (mine !== generation || err instanceof AuthError) return;
        list.replaceChildren(el('li', 'err picker-note', 'Search failed: ' + describe(err)));
      },
    );
  }

  /** @param {Choice[]} items */
  function render(items) {
    list.replaceChildren();
    if (items.length === 0) {
      list.appendChild(el('li', 'muted picker-note', 'Nothing found. An id can be pasted instead.'));
      return;
    }
    for (const item of items) {
      const li = el('li');
      li.setAttribute('role', 'option');
      const button = el('button', 'picker-choice');
      button.type = 'button';
      button.dataset.id = item.id;
      button.appendChild(el('span', 'name', item.name ? show(item.name) : 'no name'));
      button.appendChild(el('span', 'mono id', show(item.id)));
      if (item.detail) button.appendChild(el('span', 'detail', show(item.detail)));
      // Chosen with the mouse without taking the focus from the input first (which would close the list).
      button.addEventListener('mousedown', (ev) => ev.preventDefault());
      button.addEventListener('click', () => {
        chosen = item;
        input.value = item.name || item.id;
        close();
        options.changed();
        input.focus();
      });
      li.appendChild(button);
      list.appendChild(li);
    }
  }

  return {
    /** The id chosen, else what is typed. */
    value: () => (chosen ? chosen.id : input.value.trim()),
    /** The choice made, or null when the id was typed. */
    chosen: () => chosen,
    reset: () => {
      chosen = null;
      close();
    },
  };
}
