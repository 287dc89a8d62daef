import type { UnqueuedEntry } from '../../src/sync-log/sync-log.repository.js';
import { SyncLogRepository } from '../../src/sync-log/sync-log.repository.js';
import { InboxRepository } from '../../src/webhooks/inbox.repository.js';
import { startHarness, type Harness } from '../support/harness.js';

const HOUR_MS = 3_600_000;

/**
 * Ids are bigint in Postgres and exact strings in the daemon (`id::text AS id`). A statement that orders by `id`
 * then orders by its output column, the text, where "100" comes before "99": pages skip rows, a claim takes rows out
 * of turn, and the outbox claim sorts every waiting row instead of reading the first few from its index. Each
 * statement here is read with ids that cross a power of ten.
 */
describe('rows in id order across a power of ten', () => {
  let h: Harness;
  beforeAll(async () => {
    // The relay and its recovery stay away from the rows written here: their timers wait an hour, and rows written
    // directly signal no one.
    h = await startHarness({
      redisDb: 2,
      tune: (config) => {
        config.relay.sampleMs = HOUR_MS;
        config.relay.pollMs = HOUR_MS;
        config.jobs.sweepIntervalMs = HOUR_MS;
      },
    });
  });
  afterAll(() => h.close());

  /** Moves `table`'s id sequence so that the next `count` ids go from 10^k - 2 upwards (99, 100, 101, …). */
  async function acrossAPowerOfTen(table: 'webhook_inbox' | 'sync_log', count: number): Promise<string[]> {
    const [{ last }] = await h.database.query<Array<{ last: string }>>(`SELECT coalesce(max(id), 0)::text AS last FROM ${table}`);
    const power = 10n ** BigInt(String(BigInt(last) + 10n).length);
    await h.database.query(`SELECT setval(pg_get_serial_sequence($1, 'id'), $2::bigint)`, [table, String(power - 3n)]);
    return Array.from({ length: count }, (_, i) => String(power - 2n + BigInt(i)));
  }

  async function deliveries(ids: string[], projectId: string): Promise<void> {
    for (const id of ids) {
      const [row] = await h.database.query<Array<{ id: string }>>(
        `INSERT INTO webhook_inbox (endpoint, event, body, body_hash, status, project_id)
         VALUES ('events', 'project.updated', $1, sha256($1), 'received', $2) RETURNING id::text AS id`,
        [Buffer.from(`{"event":"project.updated","n":"${id}"}`), projectId],
      );
      expect(row.id).toBe(id);
    }
  }

  it('the inbox: listed newest first and paged without a gap, claimed oldest first, swept in pages without a gap', async () => {
    const ids = await acrossAPowerOfTen('webhook_inbox', 4);
    await deliveries(ids, 'order-project');
    const inbox = h.app.get(InboxRepository);
    const newest = [...ids].reverse();

    // A page is read with one row more than asked: the extra one says there is a next page.
    expect((await inbox.list({ limit: 1 })).map((d) => d.id)).toEqual(newest.slice(0, 2));
    expect((await inbox.list({ limit: 1, cursor: newest[1] })).map((d) => d.id)).toEqual(newest.slice(2));
    expect((await inbox.findNewestByProject('order-project', 3)).map((d) => d.id)).toEqual(newest.slice(0, 3));

    const claimed: string[] = [];
    expect(await inbox.claimUnqueued(3, async (batch) => void claimed.push(...batch))).toBe(3);
    expect(claimed).toEqual(ids.slice(0, 3));

    const swept: string[] = [];
    for (let after = '0', page = await inbox.staleEnqueued(0, 1, after); page.length > 0; page = await inbox.staleEnqueued(0, 1, after)) {
      swept.push(...page);
      after = page[page.length - 1];
    }
    expect(swept).toEqual(ids.slice(0, 3));
  });

  it('the sync log: queued entries claimed oldest first, failed ones picked oldest first', async () => {
    const ids = await acrossAPowerOfTen('sync_log', 4);
    for (const [i, id] of ids.entries()) {
      const [row] = await h.database.query<Array<{ id: string }>>(
        `INSERT INTO sync_log (kind, trigger, status, crm, project_id) VALUES ('associate_project', 'admin', $1, null, 'order-project') RETURNING id::text AS id`,
        [i < 2 ? 'queued' : 'failed'],
      );
      expect(row.id).toBe(id);
    }
    const syncLog = h.app.get(SyncLogRepository);

    const claimed: UnqueuedEntry[] = [];
    expect(await syncLog.claimUnqueued(1, async (batch) => void claimed.push(...batch))).toBe(1);
    expect(claimed.map((e) => e.id)).toEqual([ids[0]]);

    await h.database.query(`UPDATE sync_log SET status = 'failed' WHERE id = ANY($1::bigint[])`, [ids.slice(0, 2)]);
    expect(await syncLog.findOldestFailedIds({ projectId: 'order-project' }, 2)).toEqual(ids.slice(0, 2));
  });
});
