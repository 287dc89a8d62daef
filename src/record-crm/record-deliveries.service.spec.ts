import type { RecordNotePayload } from '../domain/actions.js';
import type { MappingLookupService } from '../mappings/mapping-lookup.service.js';
import type { Mapping } from '../mappings/mapping.entity.js';
import type { RoutedDelivery } from '../domain/service-events.js';
import { RecordDeliveriesService } from './record-deliveries.service.js';

const PROJECT = '36029621652695017';
const RECORD = '4150868000005277036';

function handler(mapping: Partial<Mapping> | null): RecordDeliveriesService {
  const row =
    mapping &&
    ({ crm: 'record', recordCrmModule: 'Deals', recordCrmRecordId: RECORD, projectId: PROJECT, status: 'associated', error: null, ...mapping } as Mapping);
  const lookup = { recordOfProject: async (projectId: string) => (projectId === PROJECT ? row : null) } as unknown as MappingLookupService;
  return new RecordDeliveriesService(lookup);
}

function delivery(event: string, data: Record<string, unknown>, projectId: string | null = PROJECT): RoutedDelivery {
  return { trigger: 'webhook', inboxId: '42', receivedAt: new Date(), shortId: '16', event, data, projectId } as unknown as RoutedDelivery;
}

const payment = {
  proposal_id: '900',
  drawing_id: '800',
  paid_amount: 1250,
  pay_channel: 'service_payment',
  paid_time: '2025-11-20T10:00:00Z',
  payment_method: 'ACH',
};

describe(RecordDeliveriesService.name, () => {
  it('a payment becomes a note keyed on the fact, the amount with two decimals', async () => {
    const [action] = await handler({}).actionsFor(delivery('proposal.payment.received', payment));
    expect(action).toMatchObject({
      kind: 'add_note',
      crm: 'record',
      projectId: PROJECT,
      target: `Deals/${RECORD}`,
      dedupeKey: 'record:payment:900:service_payment:2025-11-20T10:00:00Z:1250.00:ACH',
      payload: { module: 'Deals', recordId: RECORD, title: 'Payment received: 1250.00' },
    });
    expect((action.payload as RecordNotePayload).content).toBe(
      'Payment of 1250.00 received for proposal 900.\nChannel: service_payment\nMethod: ACH\nDate: 2025-11-20T10:00:00Z',
    );
  });

  it('an approval attaches the signed PDF under a name of the proposal, keyed on the proposal', async () => {
    const [action] = await handler({ status: 'pending' }).actionsFor(
      delivery('proposal.status_changed', { proposal_id: '900', project_id: PROJECT, status: 'APPROVED', pdf_url: 'https://files.example/s.pdf' }),
    );
    expect(action).toMatchObject({
      kind: 'attach_pdf',
      dedupeKey: 'record:approved:900',
      payload: { pdfUrl: 'https://files.example/s.pdf', fileName: 'proposal-900-signed.pdf' },
    });
    expect(action.status).toBeUndefined();
  });

  it('a failed mapping is a skipped entry saying so; no mapping and other events are nothing', async () => {
    const [skipped] = await handler({ status: 'failed', error: 'record not found' }).actionsFor(delivery('proposal.payment.received', payment));
    expect(skipped).toMatchObject({ kind: 'add_note', status: 'skipped', detail: expect.stringContaining('record not found') });
    expect(skipped.dedupeKey).toBeUndefined();
    expect(await handler(null).actionsFor(delivery('proposal.payment.received', payment))).toEqual([]);
    expect(await handler({}).actionsFor(delivery('proposal.status_changed', { proposal_id: '900', project_id: PROJECT, status: 'LOST' }))).toEqual([]);
    expect(await handler({}).actionsFor(delivery('drawing.created', { id: '1', project_id: PROJECT }))).toEqual([]);
  });

  it('the prompt: no is skipped; yes carries the short id; another mapped record fails naming both', async () => {
    const prompt = (yes: boolean, recordId = RECORD) =>
      delivery('record_crm.export_prompt', { drawing_id: '800', record_crm_module: 'Deals', record_crm_record_id: recordId, yes_no: yes });
    expect((await handler({}).actionsFor(prompt(false)))[0]).toMatchObject({ status: 'skipped' });
    expect((await handler({}).actionsFor(prompt(true)))[0]).toMatchObject({
      kind: 'attach_pdf',
      payload: { module: 'Deals', recordId: RECORD, drawingId: '800', deliveryShortId: '16' },
    });
    const [failed] = await handler({}).actionsFor(prompt(true, '4150868000000000001'));
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('Deals/4150868000000000001');
    expect(failed.error).toContain(`Deals/${RECORD}`);
  });
});
