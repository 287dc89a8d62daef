import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { QUEUES } from '../../src/queues/queues.js';
import { mapAppointment } from '../support/appointment-crm.js';
import { removeQueueKeys, startHarness, waitFor, type Harness } from '../support/harness.js';

const REDIS_DB = 10;
/** The job backoff of this file: a retry waits this long, unless Redis lost its data meanwhile. */
const BACKOFF_MS = 300_000;

/**
 * Redis that lost its data (restarted empty, flushed) while work waited in it: every key of the harness's queue prefix
 * is removed, as a `FLUSHALL` would remove them (the shared Redis itself is never flushed). The work is put back at
 * once, not after its backoff or the relay's periodic recovery (a minute), and the periodic tasks are scheduled again.
 */
describe('Redis lost its data', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: REDIS_DB, appointmentCrm: true, tune: (config) => (config.jobs.backoffBaseMs = BACKOFF_MS) });
  });
  afterAll(() => h.close());

  it('a retry waiting in Redis runs again at once, and the periodic tasks are scheduled again', async () => {
    const appointmentId = '90071992547409951';
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id);
    h.appointmentCrm!.addAppointment(appointmentId);
    await mapAppointment(h, project.id, appointmentId);
    const maintenance = h.app.get<Queue>(getQueueToken(QUEUES.maintenance));
    await waitFor(async () => (await maintenance.getJobSchedulers()).length > 0 || null, 10_000, 'the periodic tasks scheduled');

    // The sale fails every try of its first run: its job waits BACKOFF_MS in Redis.
    const sale = `/appointments/${appointmentId}/sale`;
    h.appointmentCrm!.injectFault({ method: 'PUT', path: sale, status: 503, times: h.config.http.retry.attempts });
    const res = await h.admin('/api/appointment-crm/send', { method: 'POST', json: { project_id: project.id, drawing_id: drawing.id } });
    expect(res.status).toBe(202);
    const retrying = await waitFor(
      async () => {
        const [row] = await h.database.query<Array<{ id: string; status: string; error: string | null }>>(
          `SELECT id::text, status, error FROM sync_log WHERE kind = 'push_line_items' AND target = $1`,
          [appointmentId],
        );
        return row?.status === 'queued' && row.error ? row : null;
      },
      20_000,
      'the sale waiting for its retry',
    );
    expect(retrying.error).toContain('503');

    // At once, as FLUSHALL does (removed in rounds, the watcher could put the jobs back between two rounds).
    expect(await removeQueueKeys(REDIS_DB, h.config.queuePrefix)).toBeGreaterThan(0);

    // Well before BACKOFF_MS, and before the relay's periodic recovery would look (it needs a minute untouched).
    const done = await waitFor(
      async () => {
        const [row] = await h.database.query<Array<{ status: string }>>(`SELECT status FROM sync_log WHERE id = $1`, [retrying.id]);
        return row.status === 'succeeded' ? row : null;
      },
      30_000,
      'the sale run again',
    );
    expect(done.status).toBe('succeeded');
    expect(h.appointmentCrm!.requestsTo('PUT', sale)).toHaveLength(h.config.http.retry.attempts + 1);
    expect(h.appointmentCrm!.get(appointmentId)!.sale).not.toBeNull();
    expect((await maintenance.getJobSchedulers()).map((s) => s.key)).toContain('relay-recovery');
  }, 60_000);
});
