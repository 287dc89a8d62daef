import type { SimResponse } from '../../test/sim/common/sim-server.js';
import { errorBody } from './responses.js';

interface QueryCursor {
  records: Record<string, unknown>[];
  totalSize: number;
  batchSize: number;
  usedAt: number;
}

/**
 * The batches of query answers. Query (https://developer.salesforce.com/docs/platform/api-rest/guide/resources-query.html):
 * `totalSize`, `done`, `records`, and when more remain `nextRecordsUrl` = `/services/data/vXX.X/query/<locator>-<n>`;
 * Query More Results (https://developer.salesforce.com/docs/platform/api-rest/guide/resources-query-more-results.html)
 * reads the next. A single batch holds no cursor; a page may be read again (a retry after a lost answer); a user holds
 * at most 10 cursors, opening another releases the oldest, and one idle for 15 minutes is gone (Salesforce Developer
 * Limits and Allocations Quick Reference, API Query Cursor Limits:
 * https://developer.salesforce.com/docs/atlas.en-us.salesforce_app_limits_cheatsheet.meta/salesforce_app_limits_cheatsheet/salesforce_app_limits_platform_api.htm).
 */
export class QueryCursors {
  limit = 10;
  idleMs = 15 * 60 * 1000;
  private readonly open = new Map<string, QueryCursor>();
  private counter = 0;

  first(version: string, records: Record<string, unknown>[], totalSize: number, batchSize: number): SimResponse {
    const cursor = { records, totalSize, batchSize, usedAt: Date.now() };
    if (records.length <= batchSize) return this.page(version, null, cursor, 0);
    const locator = `01gSIM${String(++this.counter).padStart(9, '0')}`;
    this.open.set(locator, cursor);
    while (this.open.size > this.limit) this.open.delete(this.open.keys().next().value!);
    return this.page(version, locator, cursor, 0);
  }

  /** The batch a `nextRecordsUrl`'s last segment (`<locator>-<n>`) names. */
  next(version: string, locatorAndOffset: string): SimResponse {
    const match = /^(01g\w+)-(\d+)$/.exec(locatorAndOffset);
    const cursor = match ? this.open.get(match[1]) : undefined;
    if (!match || !cursor || Date.now() - cursor.usedAt > this.idleMs) return errorBody(400, 'INVALID_QUERY_LOCATOR', 'invalid query locator');
    cursor.usedAt = Date.now();
    return this.page(version, match[1], cursor, Number(match[2]));
  }

  private page(version: string, locator: string | null, cursor: QueryCursor, offset: number): SimResponse {
    const end = offset + cursor.batchSize;
    const done = end >= cursor.records.length;
    return {
      status: 200,
      body: {
        totalSize: cursor.totalSize,
        done,
        ...(done ? {} : { nextRecordsUrl: `/services/data/${version}/query/${locator}-${end}` }),
        records: cursor.records.slice(offset, end),
      },
    };
  }
}
