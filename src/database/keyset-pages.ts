/** Rows read per query by a sweep that goes through a whole table. */
export const SWEEP_PAGE_SIZE = 1000;

/**
 * Hands every row a query finds to `each`, page by page: `readPage(after)` returns up to `pageSize` rows ordered by
 * id, after the last row of the page before (keyset paging, so rows that change while the sweep runs are neither
 * skipped nor read twice). Stops at the first short page; returns how many rows were handled.
 */
export async function forEachInPages<T>(pageSize: number, readPage: (after: T | undefined) => Promise<T[]>, each: (row: T) => Promise<void>): Promise<number> {
  let handled = 0;
  let page: T[] = [];
  do {
    page = await readPage(page.at(-1));
    for (const row of page) await each(row);
    handled += page.length;
  } while (page.length === pageSize);
  return handled;
}
