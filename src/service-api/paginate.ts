/**
 * Every item of a paginated list. The service states neither a maximum page size nor a total, so pages are read
 * until an empty one. A server that ignored `page` would answer the same page forever; that is caught by
 * comparing each page's first key with the previous page's.
 */
export async function* paginate<T>(
  fetchPage: (page: number) => Promise<T[]>,
  keyOf: (item: T) => unknown = (item) => (item as { id?: unknown }).id,
  maxPages = 100_000,
): AsyncGenerator<T> {
  let previousFirst: unknown;
  for (let page = 1; page <= maxPages; page++) {
    const items = await fetchPage(page);
    if (items.length === 0) return;
    const first = keyOf(items[0]);
    if (page > 1 && first !== undefined && first === previousFirst) {
      throw new Error(`pagination stuck: page ${page} repeats page ${page - 1}`);
    }
    previousFirst = first;
    yield* items;
  }
  throw new Error(`pagination did not end within ${maxPages} pages`);
}
