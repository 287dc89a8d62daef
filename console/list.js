// @ts-check
/** A list read page by page from the API (`{items, next_cursor}`), as the sync log and mappings tabs show them. */
import { api, failed, query } from './api.js';
import { $, fmtTime } from './dom.js';

const PAGE_SIZE = 50;
const MAX_LIMIT = 500;

/** The "Updated hh:mm:ss" note in the header. */
function stamp() {
  $('updated').textContent = 'Updated ' + fmtTime(new Date().toISOString()).slice(11);
}

export class PagedList {
  /**
   * @param path the API route, e.g. `/api/sync-logs`
   * @param moreButton id of the list's "Load more" button
   * @param render draws the list (called with it) once an answer is in
   * @param failure what the error notice says went wrong, or a function given the error
   */
  /**
   * @param {string} path
   * @param {string} moreButton
   * @param {(list: PagedList) => void} render
   * @param {string | ((err: unknown) => void)} failure
   */
  constructor(path, moreButton, render, failure) {
    this.path = path;
    this.moreButton = moreButton;
    this.render = render;
    this.failure = failure;
    /** @type {any[]} the rows loaded so far, as the API answered them */
    this.items = [];
    /** @type {string | null} */
    this.next = null;
    /** @type {Record<string, string | number | null | undefined>} */
    this.query = {};
    this.gen = 0;
  }

  /**
   * more: the next page after the shown rows; else the first pages again, as many rows as are shown (a refresh
   * keeps what was loaded). A newer load makes an older answer void.
   */
  /** @param {boolean} [more] */
  load(more) {
    if (more && !this.next) return Promise.resolve();
    const gen = more ? this.gen : ++this.gen;
    const limit = more ? PAGE_SIZE : Math.min(MAX_LIMIT, Math.max(PAGE_SIZE, this.items.length));
    const params = Object.assign({}, this.query, { limit, cursor: more ? this.next : '' });
    const button = $(this.moreButton, HTMLButtonElement);
    button.disabled = true;
    return api('GET', this.path + query(params))
      .then(
        /** @param {{ items: any[], next_cursor: string | null }} page */
        (page) => {
          if (gen !== this.gen) return;
          this.items = more ? this.items.concat(page.items) : page.items;
          this.next = page.next_cursor;
          this.render(this);
          stamp();
        },
        typeof this.failure === 'function' ? this.failure : failed(this.failure),
      )
      .then(() => {
        button.disabled = false;
      });
  }

  /**
   * New filters: start again from the first page.
   * @param {Record<string, string | number | null | undefined>} filters
   */
  reset(filters) {
    this.query = filters;
    this.items = [];
    this.next = null;
    return this.load(false);
  }
}
