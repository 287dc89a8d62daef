import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DelayedError, type Job } from 'bullmq';
import { ALERT_SINK } from '../alerts/alert-sink.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DatabaseUnavailableError } from '../database/database.errors.js';
import { DatabaseService } from '../database/database.service.js';
import { MetricsService } from '../observability/metrics.service.js';
import { OutboundError } from '../http/outbound-error.js';
import { PdfRejectedError } from '../http/pdf-download.js';
import { QUEUES, type RunActionJob } from '../queues/queues.js';
import { ActionRecorderService } from './action-recorder.service.js';
import { ActionRegistryService, noHandlerFor } from './action-registry.service.js';
import { ActionWorkerDeps, ServiceActionsWorker } from './action.worker.js';
import { PermanentActionError, type ActionOutcome, type NewAction, type RegisteredHandler } from './action.types.js';
import { CallTraceRepository } from '../sync-log/call-trace.repository.js';
import { ProjectsService } from '../projects/projects.service.js';
import type { SyncLogEntry } from '../sync-log/sync-log.row.js';
import { SyncLogRepository } from '../sync-log/sync-log.repository.js';

const ATTEMPTS = 8;
const BACKOFF_BASE_MS = 1_000;
const config = { jobs: { attempts: ATTEMPTS, backoffBaseMs: BACKOFF_BASE_MS } } as unknown as AppConfig;

const entryOf = (fields: Partial<SyncLogEntry> = {}): SyncLogEntry =>
  ({
    id: '7',
    kind: 'push_proposal_pdf',
    trigger: 'webhook',
    crm: 'appointment',
    projectId: '36029621652695017',
    target: 'APT-1001',
    status: 'running',
    attempts: 1,
    retryBase: 0,
    payload: { drawing_id: '800' },
    inboxId: '42',
    parentId: null,
    ...fields,
  }) as SyncLogEntry;

const jobOf = (entryId = '7') => {
  const moveToDelayed = jest.fn(async (_timestamp: number, _token?: string) => undefined);
  return { job: { data: { entryId }, moveToDelayed } as unknown as Job<RunActionJob>, moveToDelayed };
};

const unavailable = () => new OutboundError('appointment-crm', 'PUT /appointments/APT-1001/sale', 'unavailable', 503, 'upstream busy');

async function setUp() {
  const whenReady = jest.fn(async (_timeoutMs?: number) => undefined);
  const startRun = jest.fn(async (_id: string): Promise<SyncLogEntry | null> => entryOf());
  const finish = jest.fn(async (_id: string, _status: string, _detail: string | null, _error?: string) => undefined);
  const awaitRetry = jest.fn(async (_id: string, _error: string): Promise<string | null> => null);
  const run = jest.fn(async (_entry: SyncLogEntry): Promise<ActionOutcome> => ({ status: 'succeeded' }));
  const handler: RegisteredHandler = { kind: 'push_proposal_pdf', crm: 'appointment', queue: QUEUES.appointmentCrm, name: 'Stub.push', run };
  const handlerFor = jest.fn((_kind: string, _crm: string | null): RegisteredHandler | undefined => handler);
  const record = jest.fn(async (_actions: NewAction[]) => []);
  const notify = jest.fn((_kind: string, _event?: { entryId?: string; detail?: string }) => undefined);
  const saveTrace = jest.fn(async (_entryId: string, _attempt: number, _calls: unknown[]) => undefined);

  const moduleRef = await Test.createTestingModule({
    providers: [
      ServiceActionsWorker,
      ActionWorkerDeps,
      MetricsService,
      { provide: APP_CONFIG, useValue: config },
      { provide: DatabaseService, useValue: { whenReady } },
      { provide: SyncLogRepository, useValue: { startRun, finish, awaitRetry } },
      { provide: ActionRegistryService, useValue: { handlerFor } },
      { provide: ActionRecorderService, useValue: { record } },
      { provide: ALERT_SINK, useValue: { notify } },
      { provide: CallTraceRepository, useValue: { save: saveTrace } },
      { provide: ProjectsService, useValue: { names: async () => new Map([['36029621652695017', 'Ruiz kitchen']]) } },
    ],
  }).compile();
  await moduleRef.init();
  const metrics = moduleRef.get(MetricsService);
  return {
    worker: moduleRef.get(ServiceActionsWorker),
    whenReady,
    startRun,
    finish,
    awaitRetry,
    run,
    handlerFor,
    record,
    notify,
    saveTrace,
    /** How many runs the jobs counter holds with this result. */
    counted: async (result: string) =>
      (await metrics.jobs.get()).values.find((v) => v.labels.queue === QUEUES.service && v.labels.result === result)?.value ?? 0,
  };
}

type Harness = Awaited<ReturnType<typeof setUp>>;

/** Runs one job that must be put back with a delay; answers the delay it asked for, within the clock's movement. */
async function delayedBy(w: Harness, token = 'token-1'): Promise<{ min: number; max: number }> {
  const { job, moveToDelayed } = jobOf();
  const before = Date.now();
  await expect(w.worker.process(job, token)).rejects.toBeInstanceOf(DelayedError);
  const after = Date.now();
  expect(moveToDelayed).toHaveBeenCalledTimes(1);
  const [timestamp, passedToken] = moveToDelayed.mock.calls[0];
  expect(passedToken).toBe(token);
  return { min: timestamp - after, max: timestamp - before };
}

describe(ServiceActionsWorker.name, () => {
  let w: Harness;

  beforeEach(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    w = await setUp();
  });

  afterEach(() => jest.restoreAllMocks());

  describe('a run that succeeds', () => {
    it('finishes the entry and records its next actions as children of the entry', async () => {
      w.run.mockResolvedValueOnce({
        status: 'succeeded',
        detail: 'proposal.pdf uploaded',
        next: [
          { kind: 'push_line_items', crm: 'appointment', projectId: '36029621652695017', target: 'APT-1001', payload: { drawing_id: '800' } },
          {
            kind: 'set_status',
            crm: 'appointment',
            projectId: '36029621652695017',
            target: 'APT-1001',
            payload: { status: 'Sold' },
            trigger: 'admin',
            dedupeKey: 'sold:APT-1001',
          },
        ],
      });
      const { job, moveToDelayed } = jobOf('7');

      await w.worker.process(job);

      expect(w.startRun).toHaveBeenCalledWith('7');
      expect(w.handlerFor).toHaveBeenCalledWith('push_proposal_pdf', 'appointment');
      expect(w.run).toHaveBeenCalledWith(expect.objectContaining({ id: '7', kind: 'push_proposal_pdf' }));
      expect(w.finish.mock.calls).toEqual([['7', 'succeeded', 'proposal.pdf uploaded']]);
      expect(w.record.mock.calls).toEqual([
        [
          [
            {
              kind: 'push_line_items',
              crm: 'appointment',
              projectId: '36029621652695017',
              target: 'APT-1001',
              payload: { drawing_id: '800' },
              trigger: 'webhook',
              parentId: '7',
              inboxId: '42',
              dedupeKey: 'next:7:0',
            },
            {
              kind: 'set_status',
              crm: 'appointment',
              projectId: '36029621652695017',
              target: 'APT-1001',
              payload: { status: 'Sold' },
              trigger: 'admin',
              parentId: '7',
              inboxId: '42',
              dedupeKey: 'sold:APT-1001',
            },
          ],
        ],
      ]);
      expect(w.awaitRetry).not.toHaveBeenCalled();
      expect(moveToDelayed).not.toHaveBeenCalled();
      expect(await w.counted('succeeded')).toBe(1);
    });

    it('records the next links before finishing the entry, so a failure between the two keeps the chain', async () => {
      w.startRun.mockResolvedValueOnce(entryOf({ id: '7', attempts: 8, retryBase: 0 }));
      w.run.mockResolvedValueOnce({
        status: 'succeeded',
        next: [{ kind: 'set_status', crm: 'appointment', projectId: '1', target: 'APT-1', payload: { status: 'Sold' } }],
      });
      w.record.mockRejectedValueOnce(new DatabaseUnavailableError('connection terminated'));

      await w.worker.process(jobOf('7').job);

      // Not marked succeeded with its chain unrecorded: the run counts as failed, and an admin's retry (or the
      // next try) runs the idempotent push again and records the links.
      expect(w.finish.mock.calls).toEqual([['7', 'failed', null, 'database unavailable: connection terminated']]);
    });

    it('a skipped outcome is recorded as such and starts no chain', async () => {
      w.startRun.mockResolvedValueOnce(entryOf({ id: '9', trigger: 'reconcile', inboxId: null }));
      w.run.mockResolvedValueOnce({
        status: 'skipped',
        next: [{ kind: 'set_status', crm: 'appointment', projectId: '1', target: 'APT-1', payload: { status: 'Sold' } }],
      });

      await w.worker.process(jobOf('9').job);

      expect(w.finish.mock.calls).toEqual([['9', 'skipped', null]]);
      expect(w.record).not.toHaveBeenCalled();
      expect(await w.counted('skipped')).toBe(1);
    });
  });

  it('does nothing for an entry that is finished already (a repeated or stale job)', async () => {
    w.startRun.mockResolvedValueOnce(null);
    const { job, moveToDelayed } = jobOf('7');

    await expect(w.worker.process(job)).resolves.toBeUndefined();

    expect(w.startRun).toHaveBeenCalledWith('7');
    expect(w.handlerFor).not.toHaveBeenCalled();
    expect(w.run).not.toHaveBeenCalled();
    expect(w.finish).not.toHaveBeenCalled();
    expect(w.awaitRetry).not.toHaveBeenCalled();
    expect(moveToDelayed).not.toHaveBeenCalled();
  });

  it('puts the job back for a second without touching the entry while Postgres is not ready', async () => {
    w.whenReady.mockRejectedValueOnce(new DatabaseUnavailableError('connect ECONNREFUSED'));

    const { min, max } = await delayedBy(w);

    expect(min).toBeLessThanOrEqual(1_000);
    expect(max).toBeGreaterThanOrEqual(1_000);
    expect(w.startRun).not.toHaveBeenCalled();
  });

  describe('a transient failure', () => {
    it('puts the entry back with the reason and delays its job by the backoff', async () => {
      w.startRun.mockResolvedValueOnce(entryOf({ attempts: 2 }));
      w.run.mockRejectedValueOnce(unavailable());

      const { min, max } = await delayedBy(w);

      // Second try: 2 × base, with full jitter over its upper half.
      expect(min).toBeGreaterThanOrEqual(BACKOFF_BASE_MS - 1);
      expect(max).toBeLessThanOrEqual(2 * BACKOFF_BASE_MS + 1);
      expect(w.awaitRetry.mock.calls).toEqual([['7', 'appointment-crm PUT /appointments/APT-1001/sale failed: HTTP 503 upstream busy']]);
      expect(w.finish).not.toHaveBeenCalled();
      expect(await w.counted('retrying')).toBe(1);
      expect(await w.counted('skipped')).toBe(0);
    });

    it('is not retried when a newer entry holding its coalesce key supersedes it: the job just completes', async () => {
      w.startRun.mockResolvedValueOnce(entryOf({ kind: 'push_drawings', attempts: 2 }));
      w.run.mockRejectedValueOnce(unavailable());
      w.awaitRetry.mockResolvedValueOnce('36029621652695123');
      const { job, moveToDelayed } = jobOf();

      await expect(w.worker.process(job, 'token-1')).resolves.toBeUndefined();

      expect(w.awaitRetry.mock.calls).toEqual([['7', unavailable().message]]);
      expect(moveToDelayed).not.toHaveBeenCalled();
      expect(w.finish).not.toHaveBeenCalled();
      expect(w.record).not.toHaveBeenCalled();
      expect(await w.counted('skipped')).toBe(1);
      expect(await w.counted('retrying')).toBe(0);
      expect(Logger.prototype.log).toHaveBeenCalledWith(expect.stringContaining('superseded by #36029621652695123'));
      expect(Logger.prototype.warn).not.toHaveBeenCalledWith(expect.stringContaining('not put back'));
    });

    it('waits out a Retry-After longer than the backoff', async () => {
      w.run.mockRejectedValueOnce(new OutboundError('service', 'GET /v1/projects/1', 'rate_limited', 429, '', 90_000));

      const { min, max } = await delayedBy(w);

      expect(min).toBeLessThanOrEqual(90_000);
      expect(max).toBeGreaterThanOrEqual(90_000);
      expect(max - min).toBeLessThan(1_000);
      expect(w.awaitRetry).toHaveBeenCalledWith('7', 'service GET /v1/projects/1 failed: HTTP 429');
    });

    it('Postgres going away during the run is transient too', async () => {
      w.run.mockRejectedValueOnce(new DatabaseUnavailableError('connection terminated'));

      await delayedBy(w);

      expect(w.awaitRetry).toHaveBeenCalledWith('7', 'database unavailable: connection terminated');
    });

    it('delays the job when Postgres goes away between the readiness check and the claim', async () => {
      w.startRun.mockRejectedValueOnce(new Error('connect ECONNREFUSED 127.0.0.1:5432'));

      const { min } = await delayedBy(w);

      expect(min).toBeGreaterThanOrEqual(900);
      expect(w.run).not.toHaveBeenCalled();
    });

    it('still delays the job when Postgres is away for the write of the retry too', async () => {
      w.run.mockResolvedValueOnce({ status: 'succeeded' });
      w.finish.mockRejectedValueOnce(new Error('terminating connection due to administrator command'));
      w.awaitRetry.mockRejectedValueOnce(new Error('connect ECONNREFUSED 127.0.0.1:5432'));

      await delayedBy(w);

      // The entry is left running: startRun claims a running entry, so the delayed job runs it again.
      expect(w.awaitRetry).toHaveBeenCalledTimes(1);
    });

    it.each([
      { attempts: 7, retryBase: 0, retried: true },
      { attempts: 8, retryBase: 0, retried: false },
      { attempts: 12, retryBase: 8, retried: true }, // an admin's retry gave it a fresh budget
      { attempts: 16, retryBase: 8, retried: false },
    ])('after $attempts attempts from retry base $retryBase: retried $retried', async ({ attempts, retryBase, retried }) => {
      w.startRun.mockResolvedValueOnce(entryOf({ attempts, retryBase }));
      w.run.mockRejectedValueOnce(unavailable());
      const { job, moveToDelayed } = jobOf();

      const processing = w.worker.process(job);

      if (retried) {
        await expect(processing).rejects.toBeInstanceOf(DelayedError);
        expect(w.awaitRetry).toHaveBeenCalledTimes(1);
        expect(w.finish).not.toHaveBeenCalled();
      } else {
        await expect(processing).resolves.toBeUndefined();
        expect(w.finish.mock.calls).toEqual([['7', 'failed', null, unavailable().message]]);
        expect(w.awaitRetry).not.toHaveBeenCalled();
        expect(moveToDelayed).not.toHaveBeenCalled();
      }
    });

    it('a DelayedError of the handler itself is let out untouched', async () => {
      w.run.mockRejectedValueOnce(new DelayedError());
      const { job } = jobOf();

      await expect(w.worker.process(job)).rejects.toBeInstanceOf(DelayedError);

      expect(w.finish).not.toHaveBeenCalled();
      expect(w.awaitRetry).not.toHaveBeenCalled();
    });
  });

  describe('a permanent failure', () => {
    it.each([
      ['a PermanentActionError', new PermanentActionError('appointment APT-1001 does not exist'), 'appointment APT-1001 does not exist'],
      [
        'a 404',
        new OutboundError('appointment-crm', 'GET /appointments/APT-1001', 'not_found', 404, ''),
        'appointment-crm GET /appointments/APT-1001 failed: HTTP 404',
      ],
      ['a refused PDF', new PdfRejectedError('https://files.example/p.pdf', 'not a PDF'), 'PDF at https://files.example/p.pdf refused: not a PDF'],
    ])('%s fails the entry at once with its reason', async (_name, error, reason) => {
      w.run.mockRejectedValueOnce(error);
      const { job, moveToDelayed } = jobOf();

      await expect(w.worker.process(job)).resolves.toBeUndefined();

      expect(w.finish.mock.calls).toEqual([['7', 'failed', null, reason]]);
      expect(w.awaitRetry).not.toHaveBeenCalled();
      expect(moveToDelayed).not.toHaveBeenCalled();
      expect(await w.counted('failed')).toBe(1);
      expect(w.notify.mock.calls).toEqual([
        ['action_failed', { entryId: '7', detail: `#7 push_proposal_pdf (project Ruiz kitchen 36029621652695017): ${reason}` }],
      ]);
    });

    it('an entry whose kind no handler runs fails with the reason', async () => {
      w.startRun.mockResolvedValueOnce(entryOf({ kind: 'add_note', crm: 'record' }));
      w.handlerFor.mockReturnValueOnce(undefined);

      await w.worker.process(jobOf().job);

      expect(w.handlerFor).toHaveBeenCalledWith('add_note', 'record');
      expect(w.finish.mock.calls).toEqual([['7', 'failed', null, noHandlerFor('add_note')]]);
      expect(w.run).not.toHaveBeenCalled();
    });

    it('a run past the budget, the runs before it cut off by crashes, fails the entry instead of running it', async () => {
      w.startRun.mockResolvedValueOnce(entryOf({ attempts: 12, retryBase: 3 }));

      await w.worker.process(jobOf().job);

      expect(w.run).not.toHaveBeenCalled();
      expect(w.finish.mock.calls).toEqual([
        ['7', 'failed', null, 'not run again: 8 runs started, the last cut off before it finished (the process running it stopped)'],
      ]);
    });

    it('the last run of the budget still runs', async () => {
      w.startRun.mockResolvedValueOnce(entryOf({ attempts: 11, retryBase: 3 }));

      await w.worker.process(jobOf().job);

      expect(w.run).toHaveBeenCalledTimes(1);
      expect(w.finish.mock.calls).toEqual([['7', 'succeeded', null]]);
    });
  });

  describe('an unexpected error', () => {
    it('is named as such in the reason and tried again', async () => {
      w.run.mockRejectedValueOnce(new TypeError("Cannot read properties of undefined (reading 'id')"));

      await delayedBy(w);

      expect(w.awaitRetry).toHaveBeenCalledWith('7', "unexpected error: TypeError: Cannot read properties of undefined (reading 'id')");
    });

    it('fails the entry with that reason once the tries are used up, whatever was thrown', async () => {
      w.startRun.mockResolvedValueOnce(entryOf({ attempts: ATTEMPTS }));
      w.run.mockRejectedValueOnce('boom');

      await w.worker.process(jobOf().job);

      expect(w.finish.mock.calls).toEqual([['7', 'failed', null, 'unexpected error: Error: boom']]);
    });
  });
});
