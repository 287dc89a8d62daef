import type { RevenueFact } from '../sync-log/sync-log.repository.js';
import { healAction } from './revenue-check.service.js';
import { lastChangeIsOurs, type DriftRow } from './drift.js';
import { lastWriteOf, subjectsOf } from './revenue-facts.js';
import type { SyncLogEntry } from '../sync-log/sync-log.row.js';

const at = (iso: string) => new Date(iso);

function fact(id: string, target: string, kind: string, role: 'approval' | 'written', createdAt: string, extra: Partial<RevenueFact> = {}): RevenueFact {
  return {
    id,
    target,
    projectId: '7',
    kind,
    status: 'succeeded',
    payload: {},
    finishedAt: at(createdAt),
    createdAt: at(createdAt),
    role,
    proposalId: null,
    ...extra,
  };
}

describe('the revenue check’s subjects', () => {
  it('takes each record’s last recorded approval (ids break a tie), and its writes by kind, in target order', () => {
    const subjects = subjectsOf([
      fact('11', 'B', 'push_proposal_pdf', 'approval', '2026-11-28T10:00:00Z'),
      fact('9', 'B', 'push_line_items', 'approval', '2026-11-28T11:00:00Z'),
      fact('12', 'B', 'set_status', 'written', '2026-11-28T11:00:05Z'),
      fact('3', 'A', 'push_line_items', 'approval', '2026-11-28T09:00:00Z'),
      fact('4', 'A', 'push_line_items', 'approval', '2026-11-28T09:00:00Z'),
      fact('5', 'C', 'set_status', 'written', '2026-11-28T09:00:00Z'),
    ]);
    expect(subjects.map((s) => [s.target, s.approval.id])).toEqual([
      ['A', '4'],
      ['B', '9'],
    ]);
    expect(lastWriteOf(subjects[1], ['set_status', 'push_line_items'])).toEqual(at('2026-11-28T11:00:05Z'));
  });

  it('of a Zoho record, only the approvals of the kind asked for', () => {
    const facts = [
      fact('1', 'Deals/1', 'update_deal', 'approval', '2026-11-28T09:00:00Z'),
      fact('2', 'Deals/1', 'push_quote', 'approval', '2026-11-28T09:00:01Z'),
    ];
    expect(subjectsOf(facts, 'update_deal')[0].approval.id).toBe('1');
    expect(subjectsOf(facts, 'push_quote')[0].approval.id).toBe('2');
  });

  it('takes a change as crm-sync’s own only when stamped no later than the end of its write', () => {
    expect(lastChangeIsOurs(at('2026-11-28T10:00:00.000Z'), at('2026-11-28T10:00:00.000Z'))).toBe(true);
    expect(lastChangeIsOurs(at('2026-11-28T10:00:00.001Z'), at('2026-11-28T10:00:00.000Z'))).toBe(false);
    expect(lastChangeIsOurs(null, at('2026-11-28T10:00:00.000Z'))).toBe(false);
    expect(lastChangeIsOurs(at('2026-11-28T10:00:00.000Z'), null)).toBe(false);
  });
});

describe('a heal', () => {
  const drift = (kind: DriftRow['kind']): DriftRow => ({ id: '5', crm: 'appointment', target: 'A-1', kind, approvalEntryId: '40' }) as unknown as DriftRow;
  const approval = {
    id: '40',
    kind: 'push_proposal_pdf',
    projectId: '7',
    target: 'A-1',
    payload: { pdf_url: 'https://x/p.pdf', proposal_id: '71', drawing_id: '3', drawing_version_id: '9', amount: '12.50' },
  } as unknown as SyncLogEntry;

  it('records the push of the drift’s kind from the approval’s own entry, as the admin', () => {
    expect(healAction(drift('status'), approval, 'admin', 'ops')).toMatchObject({
      kind: 'set_status',
      crm: 'appointment',
      target: 'A-1',
      projectId: '7',
      payload: { status: 'Sold', amount: '12.50' },
      actor: 'ops',
    });
    expect(healAction(drift('sale_items'), approval, 'admin', 'ops')).toMatchObject({
      kind: 'push_line_items',
      payload: { drawing_id: '3', drawing_version_id: '9', amount: '12.50' },
    });
    expect(healAction(drift('file_missing'), approval, 'admin', undefined)).toMatchObject({ kind: 'push_proposal_pdf', payload: approval.payload });
  });

  it('writes its own kind only: no chain after a file or a sale, one field of a Deal; without the approval run’s fence marks', () => {
    const ran = { ...approval, payload: { ...approval.payload, 'upload-proposalSentAt': 1764300000000 } } as SyncLogEntry;
    const file = healAction(drift('file_missing'), ran, 'admin', undefined);
    expect(file.payload).toEqual({ ...approval.payload, alone: true });
    expect(healAction(drift('sale_missing'), ran, 'admin', undefined).payload).toMatchObject({ alone: true });
    const deal = {
      id: '41',
      kind: 'update_deal',
      projectId: '7',
      target: 'Deals/88',
      payload: { module: 'Deals', recordId: '88', proposalId: '71', status: 'APPROVED', amount: '12.50' },
    } as unknown as SyncLogEntry;
    const onDeal = (kind: DriftRow['kind']) => healAction({ ...drift(kind), crm: 'record', target: 'Deals/88', approvalEntryId: '41' }, deal, 'admin', 'ops');
    expect(onDeal('stage').payload).toMatchObject({ amount: '12.50', only: ['Stage'] });
    expect(onDeal('closing_date').payload).toMatchObject({ only: ['Closing_Date'] });
    // A Deal's fields heal apart; a Quote's rows and total are one push.
    expect(onDeal('amount').coalesceKey).not.toBe(onDeal('stage').coalesceKey);
    const quote = { ...deal, id: '42', kind: 'push_quote', payload: { module: 'Deals', recordId: '88', drawingId: '3' } } as unknown as SyncLogEntry;
    const onQuote = (kind: DriftRow['kind']) => healAction({ ...drift(kind), crm: 'record', target: 'Quotes/9', approvalEntryId: '42' }, quote, 'admin', 'ops');
    expect(onQuote('quote_rows').coalesceKey).toBe(onQuote('quote_total').coalesceKey);
  });

  it('refuses a push the approval cannot give', () => {
    expect(() => healAction(drift('amount'), approval, 'admin', 'ops')).toThrow('entry 40 is push_proposal_pdf, not update_deal');
  });
});
