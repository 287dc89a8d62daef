import type { RecordNotePayload } from '../domain/actions.js';
import type { MappingLookupService } from '../mappings/mapping-lookup.service.js';
import type { Mapping } from '../mappings/mapping.row.js';
import type { RoutedDelivery } from '../domain/service-events.js';
import { RecordDeliveriesService } from './record-deliveries.service.js';
import { RECORD_CRM_DEFAULTS } from '../crm-settings/automation-settings.js';
import type { RevenueSettings, RevenueSettingsService } from './revenue/revenue-settings.service.js';

const PROJECT = '36029621652695017';
const RECORD = '4150868000005277036';

function handler(mapping: Partial<Mapping> | null, revenue: Partial<RevenueSettings> = {}): RecordDeliveriesService {
  const row =
    mapping &&
    ({ crm: 'record', recordCrmModule: 'Deals', recordCrmRecordId: RECORD, projectId: PROJECT, status: 'associated', error: null, ...mapping } as Mapping);
  const lookup = { recordOfProject: async (projectId: string) => (projectId === PROJECT ? row : null) } as unknown as MappingLookupService;
  const settings = { current: async () => ({ ...RECORD_CRM_DEFAULTS, ...revenue }) } as unknown as RevenueSettingsService;
  return new RecordDeliveriesService(lookup, settings);
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

  describe('revenue', () => {
    const approved = {
      proposal_id: '901',
      project_id: PROJECT,
      status: 'APPROVED',
      total: 1234.5,
      pdf_url: 'https://x/p.pdf',
      approved_option: { drawing_id: '800' },
    };

    it("an approval of a Deal's proposal updates the Deal once per proposal and total, the amount exact", async () => {
      const actions = await handler({}).actionsFor(delivery('proposal.status_changed', approved));
      expect(actions.map((a) => a.kind)).toEqual(['attach_pdf', 'update_deal']);
      expect(actions[1]).toMatchObject({
        dedupeKey: 'record:deal:901:APPROVED:1234.50',
        payload: { module: 'Deals', recordId: RECORD, proposalId: '901', status: 'APPROVED', amount: '1234.50' },
      });
    });

    it("with line items on, an approval also pushes the approved drawing's Quote, once per proposal", async () => {
      const actions = await handler({}, { quote_line_items: true }).actionsFor(delivery('proposal.status_changed', approved));
      expect(actions[2]).toMatchObject({ kind: 'push_quote', dedupeKey: 'record:quote:approved:901', payload: { drawingId: '800', proposalId: '901' } });
    });

    it('a Lead gets no Deal update; LOST updates the Deal only when a lost stage is set', async () => {
      expect((await handler({ recordCrmModule: 'Leads' }).actionsFor(delivery('proposal.status_changed', approved))).map((a) => a.kind)).toEqual([
        'attach_pdf',
      ]);
      const lost = { ...approved, status: 'LOST', total: undefined };
      expect(await handler({}).actionsFor(delivery('proposal.status_changed', lost))).toEqual([]);
      const [action] = await handler({}, { deal_stage_on_lost: 'Closed Lost' }).actionsFor(delivery('proposal.status_changed', lost));
      expect(action).toMatchObject({ kind: 'update_deal', dedupeKey: 'record:deal:901:LOST', payload: { status: 'LOST' } });
    });
  });
});
