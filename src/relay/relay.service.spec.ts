import { jest } from '@jest/globals';
import { getQueueToken } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { ALERT_SINK } from '../alerts/alert-sink.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { CrmName } from '../domain/actions.js';
import { MetricsService } from '../observability/metrics.service.js';
import { ActionQueuesService } from '../queues/action-queues.service.js';
import { QUEUES, type ActionQueueName } from '../queues/queues.js';
import { RelaySignalService } from '../queues/relay-signal.service.js';
import { ActionRegistryService, noHandlerFor } from '../actions/action-registry.service.js';
import { SyncLogRepository, type UnqueuedEntry } from '../sync-log/sync-log.repository.js';
import { InboxRepository } from '../webhooks/inbox.repository.js';
import { RelayService } from './relay.service.js';
import { UnhandledActions } from './unhandled-actions.js';

/** 10 stored deliveries per 100 ms sample make a burst, during which 3 per sample are relayed. */
const RELAY = { burstPerSecond: 100, burstFeedPerSecond: 30, sampleMs: 100, pollMs: 1_000 };
const BURST_PER_SAMPLE = 10;
const FEED_PER_SAMPLE = 3;

interface Job {
  name: string;
  data: Record<string, string>;
  opts: { jobId: string; delay?: number };
}
type AddBulk = (jobs: Job[]) => Promise<unknown>;

/**
 * An outbox table as the repositories' claims see it: up to `limit` unqueued rows handed to `enqueue`, marked
 * enqueued only when it resolved (the transaction commits), left for the next claim when it rejected.
 */
class Outbox<T> {
  readonly rows: T[] = [];
  readonly claimed: number[] = [];
  readonly claim = jest.fn(async (limit: number, enqueue: (rows: T[]) => Promise<void>): Promise<number> => {
    const rows = this.rows.slice(0, limit);
    if (rows.length === 0) return 0;
    await enqueue(rows);
    this.rows.splice(0, rows.length);
    this.claimed.push(rows.length);
    return rows.length;
  });
}

/** Which queue runs a kind: a note only for the record CRM (no handler runs appointment notes here). */
const QUEUE_OF: Record<string, ActionQueueName | undefined> = {
  associate: QUEUES.service,
  push_proposal_pdf: QUEUES.appointmentCrm,
  'record:add_note': QUEUES.recordCrm,
};

const ids = (from: number, count: number) => Array.from({ length: count }, (_, i) => String(from + i));
const entry = (id: string, kind: string, crm: CrmName | null = null, retryBase = 0, delayMs = 0): UnqueuedEntry => ({ id, kind, crm, retryBase, delayMs });
const jobIds = (addBulk: jest.Mock<AddBulk>) => addBulk.mock.calls.flatMap(([jobs]) => jobs.map((j) => j.opts.jobId));
const relayedCount = async (metrics: MetricsService, work: string) => (await metrics.relayed.get()).values.find((v) => v.labels.work === work)?.value ?? 0;

/** Lets the relay's wake-up (setImmediate, not faked) and the pass it starts run to the end. */
const settle = async () => {
  for (let i = 0; i < 3; i++) await new Promise((done) => setImmediate(done));
};

/** The sample and poll timers are faked: `tick` moves the clock and lets the passes it caused finish. */
const tick = async (ms: number) => {
  jest.advanceTimersByTime(ms);
  await settle();
};

async function start(seed: { deliveries?: string[]; actions?: UnqueuedEntry[] } = {}) {
  const inbox = new Outbox<string>();
  const syncLog = new Outbox<UnqueuedEntry>();
  inbox.rows.push(...(seed.deliveries ?? []));
  syncLog.rows.push(...(seed.actions ?? []));
  const finish = jest.fn(async (_id: string, _status: string, _detail: string | null, _error?: string) => undefined);
  const notify = jest.fn((_kind: string, _event?: { entryId?: string; detail?: string }) => undefined);
  const queueFor = jest.fn((kind: string, crm: CrmName | null) => QUEUE_OF[`${crm}:${kind}`] ?? QUEUE_OF[kind]);
  const routeQueue = { addBulk: jest.fn<AddBulk>(async (jobs) => jobs) };
  const actionQueues = Object.fromEntries(
    [QUEUES.service, QUEUES.appointmentCrm, QUEUES.recordCrm].map((name) => [name, { addBulk: jest.fn<AddBulk>(async (jobs) => jobs) }]),
  ) as Record<ActionQueueName, { addBulk: jest.Mock<AddBulk> }>;

  const moduleRef: TestingModule = await Test.createTestingModule({
    providers: [
      RelayService,
      MetricsService,
      RelaySignalService,
      { provide: APP_CONFIG, useValue: { relay: RELAY } as unknown as AppConfig },
      { provide: InboxRepository, useValue: { claimUnqueued: inbox.claim } },
      { provide: SyncLogRepository, useValue: { claimUnqueued: syncLog.claim, finish } },
      UnhandledActions,
      { provide: ALERT_SINK, useValue: { notify } },
      { provide: ActionRegistryService, useValue: { queueFor } },
      { provide: ActionQueuesService, useValue: { get: (name: ActionQueueName) => actionQueues[name] } },
      { provide: getQueueToken(QUEUES.webhooks), useValue: routeQueue },
    ],
  }).compile();
  await moduleRef.init(); // onApplicationBootstrap: the timers, and a first pass over what waits
  await settle();
  return {
    moduleRef,
    inbox,
    syncLog,
    finish,
    notify,
    queueFor,
    routeQueue,
    actionQueues,
    signal: moduleRef.get(RelaySignalService),
    metrics: moduleRef.get(MetricsService),
  };
}

describe(RelayService.name, () => {
  let moduleRef: TestingModule | undefined;
  let warn: jest.SpiedFunction<Logger['warn']>;

  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    await moduleRef?.close();
    moduleRef = undefined;
    warn.mockRestore();
    jest.useRealTimers();
  });

  describe('actions', () => {
    it('adds each written action to the queue its kind’s handler names, with its job id and delay; an action no handler runs fails', async () => {
      const relay = await start();
      moduleRef = relay.moduleRef;
      relay.syncLog.rows.push(
        entry('11', 'associate'),
        entry('12', 'push_proposal_pdf', 'appointment', 2, 3_000),
        entry('13', 'add_note', 'record'),
        entry('14', 'add_note', 'appointment'),
        entry('15', 'associate', null, 1),
      );

      relay.signal.workWritten();
      await settle();

      const { service, appointmentCrm, recordCrm } = QUEUES;
      expect(relay.actionQueues[service].addBulk.mock.calls).toEqual([
        [
          [
            { name: 'run-action', data: { entryId: '11' }, opts: { jobId: 'sync-11-0', delay: 0 } },
            { name: 'run-action', data: { entryId: '15' }, opts: { jobId: 'sync-15-1', delay: 0 } },
          ],
        ],
      ]);
      expect(relay.actionQueues[appointmentCrm].addBulk.mock.calls).toEqual([
        [[{ name: 'run-action', data: { entryId: '12' }, opts: { jobId: 'sync-12-2', delay: 3_000 } }]],
      ]);
      expect(relay.actionQueues[recordCrm].addBulk.mock.calls).toEqual([
        [[{ name: 'run-action', data: { entryId: '13' }, opts: { jobId: 'sync-13-0', delay: 0 } }]],
      ]);
      expect(relay.queueFor).toHaveBeenCalledWith('add_note', 'appointment');
      expect(relay.finish.mock.calls).toEqual([['14', 'failed', null, noHandlerFor('add_note')]]);
      expect(relay.notify.mock.calls).toEqual([['action_failed', { entryId: '14', detail: `#14 add_note: ${noHandlerFor('add_note')}` }]]);
      expect(relay.syncLog.rows).toEqual([]);
      expect(relay.routeQueue.addBulk).not.toHaveBeenCalled();
      expect(await relayedCount(relay.metrics, 'action')).toBe(5);
    });

    it('claims actions again while a batch came back full', async () => {
      const relay = await start({ actions: ids(1, 1_200).map((id) => entry(id, 'associate')) });
      moduleRef = relay.moduleRef;

      expect(relay.syncLog.claim.mock.calls.map(([limit]) => limit)).toEqual([500, 500, 500]);
      expect(relay.syncLog.claimed).toEqual([500, 500, 200]);
      expect(relay.actionQueues[QUEUES.service].addBulk.mock.calls.map(([jobs]) => jobs.length)).toEqual([500, 500, 200]);
      expect(new Set(jobIds(relay.actionQueues[QUEUES.service].addBulk)).size).toBe(1_200);
    });

    it('the poll timer relays actions no signal announced (written by another replica)', async () => {
      const relay = await start();
      moduleRef = relay.moduleRef;
      relay.syncLog.rows.push(entry('21', 'associate'));

      await tick(RELAY.pollMs - 1);
      expect(relay.actionQueues[QUEUES.service].addBulk).not.toHaveBeenCalled();
      await tick(1);
      expect(jobIds(relay.actionQueues[QUEUES.service].addBulk)).toEqual(['sync-21-0']);
    });
  });

  describe('deliveries', () => {
    it('adds stored deliveries as route jobs in batches, claiming again while a batch came back full', async () => {
      const relay = await start({ deliveries: ids(1, 1_100) });
      moduleRef = relay.moduleRef;

      expect(relay.inbox.claim.mock.calls.map(([limit]) => limit)).toEqual([500, 500, 500]);
      expect(relay.routeQueue.addBulk.mock.calls.map(([jobs]) => jobs.length)).toEqual([500, 500, 100]);
      expect(relay.routeQueue.addBulk.mock.calls[0][0][0]).toEqual({ name: 'route-delivery', data: { inboxId: '1' }, opts: { jobId: 'inbox-1' } });
      expect(jobIds(relay.routeQueue.addBulk)).toEqual(ids(1, 1_100).map((id) => `inbox-${id}`));
      expect(relay.inbox.rows).toEqual([]);
      expect(await relayedCount(relay.metrics, 'delivery')).toBe(1_100);
    });

    it('relays a few routable deliveries as soon as they are stored; unroutable ones wake nothing', async () => {
      const relay = await start();
      moduleRef = relay.moduleRef;
      const claimsAtStart = relay.inbox.claim.mock.calls.length;

      relay.signal.deliveriesStored(2, false);
      await settle();
      expect(relay.inbox.claim.mock.calls.length).toBe(claimsAtStart);

      relay.inbox.rows.push('7', '8');
      relay.signal.deliveriesStored(2, true);
      await settle();
      expect(jobIds(relay.routeQueue.addBulk)).toEqual(['inbox-7', 'inbox-8']);
    });

    it('during a burst relays only the trickle per sample, and the rest once the burst ends', async () => {
      const relay = await start();
      moduleRef = relay.moduleRef;
      const bursting = async () => (await relay.metrics.relayBursting.get()).values[0].value;

      // A burst is noticed as it starts: none of these is relayed at once.
      relay.inbox.rows.push(...ids(1, 40));
      relay.signal.deliveriesStored(40, true);
      await settle();
      expect(relay.routeQueue.addBulk).not.toHaveBeenCalled();
      expect(await bursting()).toBe(1);

      // The sample ends while the burst goes on: the trickle, and no more however often the relay is woken.
      await tick(RELAY.sampleMs);
      expect(jobIds(relay.routeQueue.addBulk)).toEqual(ids(1, FEED_PER_SAMPLE).map((id) => `inbox-${id}`));
      relay.inbox.rows.push(...ids(41, BURST_PER_SAMPLE));
      relay.signal.deliveriesStored(BURST_PER_SAMPLE, true);
      relay.signal.workWritten();
      await settle();
      expect(jobIds(relay.routeQueue.addBulk)).toHaveLength(FEED_PER_SAMPLE);

      await tick(RELAY.sampleMs);
      expect(jobIds(relay.routeQueue.addBulk)).toEqual(ids(1, 2 * FEED_PER_SAMPLE).map((id) => `inbox-${id}`));
      expect(await bursting()).toBe(1);

      // A sample with fewer stored than the burst threshold ends it: everything that waited goes.
      relay.inbox.rows.push(...ids(51, BURST_PER_SAMPLE - 1));
      relay.signal.deliveriesStored(BURST_PER_SAMPLE - 1, true);
      await tick(RELAY.sampleMs);
      expect(await bursting()).toBe(0);
      expect(jobIds(relay.routeQueue.addBulk)).toEqual(ids(1, 59).map((id) => `inbox-${id}`));
      expect(relay.inbox.rows).toEqual([]);
    });
  });

  describe('a failed enqueue', () => {
    it('does not stop the relay: the rows stay unqueued and are claimed again on the next pass', async () => {
      const relay = await start();
      moduleRef = relay.moduleRef;
      relay.routeQueue.addBulk.mockRejectedValueOnce(new Error('Connection is closed.'));
      relay.actionQueues[QUEUES.appointmentCrm].addBulk.mockRejectedValueOnce(new Error('Connection is closed.'));

      relay.inbox.rows.push('1', '2');
      relay.signal.deliveriesStored(2, true);
      await settle();
      expect(relay.inbox.rows).toEqual(['1', '2']);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('Connection is closed.'));

      await tick(RELAY.sampleMs);
      expect(relay.routeQueue.addBulk.mock.calls.map(([jobs]) => jobs.map((j) => j.opts.jobId))).toEqual([
        ['inbox-1', 'inbox-2'],
        ['inbox-1', 'inbox-2'],
      ]);
      expect(relay.inbox.rows).toEqual([]);

      // One queue of two refusing leaves the whole batch for the next pass, under the same job ids.
      relay.syncLog.rows.push(entry('5', 'associate'), entry('6', 'push_proposal_pdf', 'appointment'));
      relay.signal.workWritten();
      await settle();
      expect(relay.syncLog.rows).toHaveLength(2);
      await tick(RELAY.pollMs);
      expect(relay.syncLog.rows).toEqual([]);
      expect(jobIds(relay.actionQueues[QUEUES.service].addBulk)).toEqual(['sync-5-0', 'sync-5-0']);
      expect(jobIds(relay.actionQueues[QUEUES.appointmentCrm].addBulk)).toEqual(['sync-6-0', 'sync-6-0']);
      expect(await relayedCount(relay.metrics, 'delivery')).toBe(2);
      expect(await relayedCount(relay.metrics, 'action')).toBe(2);
    });

    it('gives up an enqueue that hangs after 10 s, and claims its rows again', async () => {
      const relay = await start();
      moduleRef = relay.moduleRef;
      relay.routeQueue.addBulk.mockReturnValueOnce(new Promise(() => undefined));

      relay.inbox.rows.push('1');
      relay.signal.deliveriesStored(1, true);
      await settle();
      await tick(9_999);
      expect(relay.inbox.rows).toEqual(['1']);
      expect(relay.inbox.claim).toHaveBeenCalledTimes(2); // the start's pass, then the hanging one

      await tick(1);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('did not answer within 10000 ms'));
      await tick(RELAY.sampleMs);
      expect(relay.inbox.rows).toEqual([]);
      expect(jobIds(relay.routeQueue.addBulk)).toEqual(['inbox-1', 'inbox-1']);
    });
  });

  describe('shutdown', () => {
    it('stops the timers: nothing is claimed afterwards', async () => {
      const relay = await start();
      const claims = () => relay.inbox.claim.mock.calls.length + relay.syncLog.claim.mock.calls.length;
      await tick(RELAY.pollMs);
      const whileRunning = claims();
      expect(whileRunning).toBeGreaterThan(2); // the timers have been claiming

      await relay.moduleRef.close();
      expect(jest.getTimerCount()).toBe(0);
      relay.inbox.rows.push('1');
      relay.syncLog.rows.push(entry('2', 'associate'));
      relay.signal.deliveriesStored(1, true);
      relay.signal.workWritten();
      await tick(10 * RELAY.pollMs);
      expect(claims()).toBe(whileRunning);
      expect(relay.routeQueue.addBulk).not.toHaveBeenCalled();
    });

    it('waits for a pass under way', async () => {
      const relay = await start();
      moduleRef = relay.moduleRef;
      let answer!: (jobs: unknown) => void;
      relay.routeQueue.addBulk.mockReturnValueOnce(new Promise((done) => (answer = done)));
      relay.inbox.rows.push('1');
      relay.signal.deliveriesStored(1, true);
      await settle();

      let closed = false;
      const closing = relay.moduleRef.close().then(() => (closed = true));
      moduleRef = undefined;
      await settle();
      expect(closed).toBe(false);
      answer([]);
      await closing;
      expect(relay.inbox.rows).toEqual([]);
    });
  });
});
