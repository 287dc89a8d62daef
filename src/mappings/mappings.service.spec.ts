import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { EntityManager } from 'typeorm';
import { DatabaseService } from '../database/database.service.js';
import { ActionRecorderService, type RecordedAction } from '../actions/action-recorder.service.js';
import type { NewAction } from '../actions/action.types.js';
import type { SyncLogEntry } from '../sync-log/sync-log.row.js';
import type { MappingInput } from './dto/mapping-input.dto.js';
import { rowToMapping, type MappingRow } from './mapping-rows.js';
import type { Mapping, MappingCrm } from './mapping.row.js';
import { MappingRepository, type MappingListFilter } from './mapping.repository.js';
import { A2_CHUNK, MappingsService } from './mappings.service.js';

/** The transaction a claim runs in, as the repository's methods receive it. */
const MANAGER = { transaction: 'claim' } as unknown as EntityManager;

const CREATED = new Date('2025-11-20T10:00:00Z');
const RECORD = '4150868000005277036';

const row = (id: number, crm: MappingCrm, projectId: string, fields: Partial<MappingRow> = {}): MappingRow => ({
  id: String(id),
  crm,
  appointment_id: crm === 'appointment' ? `APT-${id}` : null,
  record_crm_module: crm === 'record' ? 'Deals' : null,
  record_crm_record_id: crm === 'record' ? `${RECORD}${id}` : null,
  crm_record_name: null,
  project_id: projectId,
  status: 'pending',
  source: 'admin',
  error: null,
  claimed_by: null,
  created_at: CREATED,
  updated_at: CREATED,
  ...fields,
});

const appointmentInput = (appointmentId: string, projectId: string): MappingInput => ({
  crm: 'appointment',
  appointmentId,
  recordCrmModule: null,
  recordCrmRecordId: null,
  projectId,
});
const recordInput = (recordId: string, projectId: string): MappingInput => ({
  crm: 'record',
  appointmentId: null,
  recordCrmModule: 'Deals',
  recordCrmRecordId: recordId,
  projectId,
});
/** The row Postgres would store for an input. */
const rowOf = (id: number, input: MappingInput): MappingRow => ({
  ...row(id, input.crm, input.projectId),
  appointment_id: input.appointmentId,
  record_crm_module: input.recordCrmModule,
  record_crm_record_id: input.recordCrmRecordId,
});

/**
 * The `mapping` table as the claiming transactions see it: the rows locked FOR UPDATE SKIP LOCKED by CRM, project,
 * keyset and limit, and the two ways of setting `claimed_by`.
 */
function mappingTable(rows: MappingRow[]) {
  const lockUnclaimedPending = jest.fn(async (_manager: EntityManager, crm: MappingCrm, projectId: string | null, after: string, limit: number) =>
    rows
      .filter((r) => r.crm === crm && r.status === 'pending' && r.claimed_by === null && (projectId === null || r.project_id === projectId))
      .filter((r) => BigInt(r.id) > BigInt(after))
      .sort((a, b) => Number(BigInt(a.id) - BigInt(b.id)))
      .slice(0, limit)
      .map(rowToMapping),
  );
  const claimForEntry = jest.fn(async (_manager: EntityManager, entryId: string, ids: string[]) => {
    for (const r of rows) if (ids.includes(r.id)) r.claimed_by = entryId;
  });
  const claimEach = jest.fn(async (_manager: EntityManager, ids: string[], entryIds: string[]) => {
    ids.forEach((id, i) => (rows.find((r) => r.id === id)!.claimed_by = entryIds[i]));
  });
  return { rows, lockUnclaimedPending, claimForEntry, claimEach };
}

async function setUp() {
  const events: string[] = [];
  const table = mappingTable([]);
  const repository = {
    insertMany: jest.fn(async (_inputs: MappingInput[]) => [] as Mapping[]),
    findConflicting: jest.fn(async (_inputs: MappingInput[]) => [] as Mapping[]),
    findById: jest.fn(async (_id: string) => null as Mapping | null),
    list: jest.fn(async (_filter: MappingListFilter) => [] as Mapping[]),
    delete: jest.fn(async (_id: string) => false),
    countPending: jest.fn(async (_filter: { crm?: MappingCrm; projectId?: string }) => 0),
    releaseClaimsOfFinishedEntries: jest.fn(async () => 0),
    lockUnclaimedPending: table.lockUnclaimedPending,
    claimForEntry: table.claimForEntry,
    claimEach: table.claimEach,
  };
  const transaction = jest.fn(async (work: (manager: EntityManager) => Promise<unknown>) => {
    events.push('begin');
    const result = await work(MANAGER);
    events.push('commit');
    return result;
  });
  let nextEntryId = 900;
  const record = jest.fn(async (actions: NewAction[], _options?: { manager?: unknown }): Promise<RecordedAction[]> =>
    actions.map((action) => ({
      entry: { id: String(nextEntryId++), kind: action.kind, status: 'queued', payload: action.payload } as SyncLogEntry,
      created: true,
    })),
  );
  const committed = jest.fn((recorded: RecordedAction[]) => {
    events.push(`committed ${recorded.map((r) => r.entry.id).join(',')}`);
  });

  const moduleRef = await Test.createTestingModule({
    providers: [
      MappingsService,
      { provide: DatabaseService, useValue: { transaction } },
      { provide: MappingRepository, useValue: repository },
      { provide: ActionRecorderService, useValue: { record, committed } },
    ],
  }).compile();
  return { service: moduleRef.get(MappingsService), events, table, repository, transaction, record, committed };
}

describe(MappingsService.name, () => {
  let m: Awaited<ReturnType<typeof setUp>>;

  beforeEach(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    m = await setUp();
  });

  afterEach(() => jest.restoreAllMocks());

  describe('ids that are not ids', () => {
    const bad = ['', 'abc', '12a', '-1', '1.5', ' 12', '12345678901234567890', "1'; DROP TABLE mapping; --"];

    it('get answers null without asking Postgres', async () => {
      for (const id of bad) expect(await m.service.get(id)).toBeNull();
      expect(m.repository.findById).not.toHaveBeenCalled();

      const found = { id: '1234567890123456789' } as Mapping;
      m.repository.findById.mockResolvedValueOnce(found);
      expect(await m.service.get('1234567890123456789')).toBe(found);
      expect(m.repository.findById).toHaveBeenCalledWith('1234567890123456789');
    });

    it('remove answers false without asking Postgres; a real id is removed when it exists', async () => {
      for (const id of bad) expect(await m.service.remove(id)).toBe(false);
      expect(m.repository.delete).not.toHaveBeenCalled();

      m.repository.delete.mockResolvedValueOnce(true);
      expect(await m.service.remove('12')).toBe(true);
      expect(m.repository.delete).toHaveBeenLastCalledWith('12');
      m.repository.delete.mockResolvedValueOnce(false);
      expect(await m.service.remove('13')).toBe(false);
      expect(m.repository.delete).toHaveBeenLastCalledWith('13');
    });
  });

  describe('createMany', () => {
    it('asks nothing of Postgres for no inputs', async () => {
      expect(await m.service.createMany([])).toEqual([]);
      expect(m.repository.insertMany).not.toHaveBeenCalled();
      expect(m.repository.findConflicting).not.toHaveBeenCalled();
    });

    it('inserts every input in one statement and answers in input order whatever order RETURNING used', async () => {
      const inputs = [appointmentInput('APT-1', '101'), recordInput('55', '102'), appointmentInput('APT-3', '103')];
      m.repository.insertMany.mockResolvedValueOnce([rowOf(3, inputs[2]), rowOf(1, inputs[0]), rowOf(2, inputs[1])].map(rowToMapping));

      const results = await m.service.createMany(inputs);

      expect(m.repository.insertMany).toHaveBeenCalledTimes(1);
      expect(m.repository.insertMany).toHaveBeenCalledWith(inputs, 'admin');
      expect(m.repository.findConflicting).not.toHaveBeenCalled();
      expect(results.map((r) => (r.status === 'created' ? r.mapping.id : r.status))).toEqual(['1', '2', '3']);
      expect(results[1]).toMatchObject({ status: 'created', mapping: { crm: 'record', recordCrmModule: 'Deals', recordCrmRecordId: '55', projectId: '102' } });
    });

    it('answers each input that was not inserted as a conflict naming the mapping in its way', async () => {
      const inputs = [
        appointmentInput('APT-1', '101'), // exists as it is
        appointmentInput('APT-2', '201'), // the appointment is mapped to another project
        appointmentInput('APT-9', '301'), // the project has another appointment
        recordInput('55', '401'), // the record is mapped to another project
        recordInput('66', '501'), // created
        appointmentInput('APT-7', '601'), // in the way of nothing any more (removed meanwhile)
      ];
      const existing = [
        rowOf(11, inputs[0]),
        rowOf(12, appointmentInput('APT-2', '999')),
        rowOf(13, appointmentInput('APT-8', '301')),
        rowOf(14, recordInput('55', '998')),
      ];
      m.repository.insertMany.mockResolvedValueOnce([rowToMapping(rowOf(15, inputs[4]))]);
      m.repository.findConflicting.mockResolvedValueOnce(existing.map(rowToMapping));

      const results = await m.service.createMany(inputs);

      // The conflicts are looked up for the inputs that lost only.
      expect(m.repository.findConflicting).toHaveBeenCalledWith([inputs[0], inputs[1], inputs[2], inputs[3], inputs[5]]);
      expect(results).toEqual([
        {
          status: 'conflict',
          existing: expect.objectContaining({ id: '11' }),
          error: 'this mapping exists already: mapping 11 (appointment APT-1 -> project 101)',
        },
        {
          status: 'conflict',
          existing: expect.objectContaining({ id: '12' }),
          error: 'appointment APT-2 is already mapped: mapping 12 (appointment APT-2 -> project 999)',
        },
        {
          status: 'conflict',
          existing: expect.objectContaining({ id: '13' }),
          error: 'project 301 already has an appointment mapping: mapping 13 (appointment APT-8 -> project 301)',
        },
        {
          status: 'conflict',
          existing: expect.objectContaining({ id: '14' }),
          error: 'record Deals/55 is already mapped: mapping 14 (record Deals/55 -> project 998)',
        },
        { status: 'created', mapping: expect.objectContaining({ id: '15', projectId: '501' }) },
        { status: 'conflict', existing: null, error: 'conflicts with a mapping that was removed meanwhile; try again' },
      ]);
    });

    it('of two equal inputs in one call, the first is created and the second names it', async () => {
      const input = recordInput('77', '701');
      m.repository.insertMany.mockResolvedValueOnce([rowToMapping(rowOf(21, input))]);
      m.repository.findConflicting.mockResolvedValueOnce([rowToMapping(rowOf(21, input))]);

      const [first, second] = await m.service.createMany([input, { ...input }]);

      expect(first).toMatchObject({ status: 'created', mapping: { id: '21' } });
      expect(second).toEqual({
        status: 'conflict',
        existing: expect.objectContaining({ id: '21' }),
        error: 'this mapping exists already: mapping 21 (record Deals/77 -> project 701)',
      });
    });
  });

  describe('list', () => {
    /** The repository answering the first `limit` of `rows` (newest first, as ORDER BY id DESC would). */
    const stored = (rows: Array<{ id: string }>) => m.repository.list.mockImplementation(async (filter) => rows.slice(0, filter.limit) as Mapping[]);
    const newestFirst = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ id: String(from - i) }));

    it('answers a page and the cursor of the next one while there is more', async () => {
      stored(newestFirst(30, 30));

      const page = await m.service.list({ limit: 10, crm: 'record', status: 'failed', projectId: '101', cursor: '31' });

      expect(page.items.map((i) => i.id)).toEqual(newestFirst(30, 10).map((i) => i.id));
      expect(page.nextCursor).toBe('21');
      // One row more than the page: it says whether there is a next one.
      expect(m.repository.list).toHaveBeenCalledWith({ limit: 11, crm: 'record', status: 'failed', projectId: '101', cursor: '31' });
    });

    it('answers no cursor on the last page, full or not, and filters on nothing unasked', async () => {
      stored(newestFirst(10, 10));
      expect(await m.service.list({ limit: 10 })).toEqual({ items: newestFirst(10, 10), nextCursor: null });
      expect(m.repository.list).toHaveBeenLastCalledWith({ limit: 11 });
      stored(newestFirst(3, 3));
      expect(await m.service.list({ limit: 10 })).toEqual({ items: newestFirst(3, 3), nextCursor: null });
    });
  });

  it('countPending answers the count of the repository for the filter, every mapping with none', async () => {
    m.repository.countPending.mockResolvedValueOnce(42);
    expect(await m.service.countPending({ crm: 'record', projectId: '101' })).toBe(42);
    expect(m.repository.countPending).toHaveBeenLastCalledWith({ crm: 'record', projectId: '101' });
    expect(await m.service.countPending()).toBe(0);
    expect(m.repository.countPending).toHaveBeenLastCalledWith({});
  });

  describe('associatePending', () => {
    /** The parameters of each claiming read: CRM, project, limit, the last id claimed. */
    const selectParams = () => m.table.lockUnclaimedPending.mock.calls.map(([, crm, projectId, after, limit]) => [crm, projectId, limit, after]);
    const pendingTable = () => [
      ...Array.from({ length: 250 }, (_, i) => row(i + 1, 'appointment', String(1000 + i))),
      row(251, 'appointment', '2000', { claimed_by: '77' }), // held by another action
      row(252, 'appointment', '2001', { status: 'associated' }),
      row(253, 'record', '3000'),
      row(254, 'record', '3001'),
    ];

    it('records one associate action per chunk of 100 appointment mappings and one per record mapping, each in its own transaction', async () => {
      m.table.rows.push(...pendingTable());

      const entries = await m.service.associatePending('admin');

      // Stale claims are released before anything is claimed.
      expect(m.repository.releaseClaimsOfFinishedEntries).toHaveBeenCalledTimes(1);
      expect(m.repository.releaseClaimsOfFinishedEntries.mock.invocationCallOrder[0]).toBeLessThan(m.transaction.mock.invocationCallOrder[0]);
      // Every read and claim runs in the claiming transaction.
      for (const call of [...m.table.lockUnclaimedPending.mock.calls, ...m.table.claimForEntry.mock.calls, ...m.table.claimEach.mock.calls])
        expect(call[0]).toBe(MANAGER);

      // The pending index is walked forwards from the last id claimed, A2_CHUNK rows at a time.
      const selects = selectParams();
      expect(selects).toEqual([
        ['appointment', null, A2_CHUNK, '0'],
        ['appointment', null, A2_CHUNK, '100'],
        ['appointment', null, A2_CHUNK, '200'],
        ['appointment', null, A2_CHUNK, '250'],
        ['record', null, 100, '0'],
        ['record', null, 100, '254'],
      ]);

      const [a1, a2, a3, records] = m.record.mock.calls;
      expect(m.record).toHaveBeenCalledTimes(4);
      expect(a1[0]).toEqual([
        {
          kind: 'associate',
          trigger: 'admin',
          crm: 'appointment',
          projectId: null,
          target: null,
          payload: { mapping_ids: Array.from({ length: 100 }, (_, i) => String(i + 1)) },
          detail: 'A2 for 100 appointment mapping(s)',
        },
      ]);
      expect(a1[1]).toEqual({ manager: MANAGER }); // inside the claiming transaction
      expect((a2[0][0].payload as { mapping_ids: string[] }).mapping_ids).toHaveLength(100);
      expect(a3[0]).toEqual([
        expect.objectContaining({
          detail: 'A2 for 50 appointment mapping(s)',
          payload: { mapping_ids: Array.from({ length: 50 }, (_, i) => String(i + 201)) },
        }),
      ]);
      expect(records[0]).toEqual([
        { kind: 'associate', trigger: 'admin', crm: 'record', projectId: '3000', target: `Deals/${RECORD}253`, payload: { mapping_ids: ['253'] } },
        { kind: 'associate', trigger: 'admin', crm: 'record', projectId: '3001', target: `Deals/${RECORD}254`, payload: { mapping_ids: ['254'] } },
      ]);

      // Each mapping is claimed by the action that sends it; the held and the associated ones are left alone.
      const claimedBy = Object.fromEntries(m.table.rows.map((r) => [r.id, r.claimed_by]));
      expect(claimedBy['1']).toBe('900');
      expect(claimedBy['100']).toBe('900');
      expect(claimedBy['101']).toBe('901');
      expect(claimedBy['250']).toBe('902');
      expect(claimedBy['251']).toBe('77');
      expect(claimedBy['252']).toBeNull();
      expect(claimedBy['253']).toBe('903');
      expect(claimedBy['254']).toBe('904');

      expect(entries.map((e) => e.id)).toEqual(['900', '901', '902', '903', '904']);
    });

    it('tells the relay about each chunk once its transaction committed, and not about one that did not', async () => {
      m.table.rows.push(...pendingTable());
      const work = m.transaction.getMockImplementation()!;
      m.transaction.mockImplementationOnce(work).mockImplementationOnce(async (fn) => {
        m.events.push('begin');
        await fn(MANAGER);
        throw new Error('could not serialize access');
      });

      await expect(m.service.associatePending('schedule')).rejects.toThrow('could not serialize access');

      expect(m.events).toEqual(['begin', 'commit', 'committed 900', 'begin']);
      expect(m.committed).toHaveBeenCalledTimes(1);
    });

    it('tells the relay after every committed chunk, and only about that chunk', async () => {
      m.table.rows.push(...pendingTable());

      await m.service.associatePending('admin');

      expect(m.events).toEqual([
        ...['begin', 'commit', 'committed 900'],
        ...['begin', 'commit', 'committed 901'],
        ...['begin', 'commit', 'committed 902'],
        ...['begin', 'commit'], // no appointment mapping left
        ...['begin', 'commit', 'committed 903,904'],
        ...['begin', 'commit'],
      ]);
    });

    it('for one project, names its project and appointment on the action; a CRM filter claims that CRM only', async () => {
      m.table.rows.push(...pendingTable());

      const entries = await m.service.associatePending('webhook', { projectId: '1005' });

      expect(m.record.mock.calls.map(([actions]) => actions)).toEqual([
        [
          {
            kind: 'associate',
            trigger: 'webhook',
            crm: 'appointment',
            projectId: '1005',
            target: 'APT-6',
            payload: { mapping_ids: ['6'] },
            detail: 'A2 for 1 appointment mapping(s)',
          },
        ],
      ]);
      expect(selectParams().map((params) => params[1])).toEqual(['1005', '1005', '1005']);
      expect(entries).toHaveLength(1);

      m.record.mockClear();
      m.table.lockUnclaimedPending.mockClear();
      const recordOnly = await m.service.associatePending('admin', { crm: 'record' });

      expect(selectParams().map((params) => params[0])).toEqual(['record', 'record']);
      expect(recordOnly.map((e) => e.id)).toEqual(['901', '902']);
      expect(m.table.rows.filter((r) => r.crm === 'appointment' && r.claimed_by !== null).map((r) => r.id)).toEqual(['6', '251']);
    });

    it('records nothing and tells the relay nothing when no mapping is pending', async () => {
      m.table.rows.push(row(1, 'appointment', '1', { status: 'associated' }), row(2, 'record', '2', { claimed_by: '5' }));

      expect(await m.service.associatePending('reconcile')).toEqual([]);
      expect(m.record).not.toHaveBeenCalled();
      expect(m.committed).not.toHaveBeenCalled();
      expect(m.transaction).toHaveBeenCalledTimes(2);
    });
  });
});
