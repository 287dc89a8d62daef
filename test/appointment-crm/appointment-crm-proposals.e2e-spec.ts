import type { SaleItem } from '../../src/appointment-crm/appointment-crm.js';
import { DeliveryRouterService } from '../../src/webhooks/delivery-router.service.js';
import { parseDelivery } from '../../src/webhooks/parse-delivery.js';
import type { RoutedDelivery } from '../../src/domain/service-events.js';
import { deliverEvent, deliverPrompt, entriesOf, mapAppointment, settled } from '../support/appointment-crm.js';
import { toJson } from '../../sim/common/sim-server.js';
import { events } from '../../sim/service/index.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';
import { inboxDeliveries } from '../support/tables.js';

/** Proposals, sales, status and notes: export prompt, send action, approval and payment. */
describe('appointment CRM: proposals, sales and notes', () => {
  let h: Harness;
  let seq = 0;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 10, appointmentCrm: true });
  });
  afterAll(() => h.close());

  const crm = () => h.appointmentCrm!;
  const download = async (url: string) => Buffer.from(await (await fetch(url)).arrayBuffer());
  const crmRequestsFor = (appointmentId: string) => crm().requests.filter((r) => r.path.startsWith(`/appointments/${appointmentId}`));

  /** A mapped project with one drawing whose first product is connected to an external product. */
  async function scenario(mappingStatus: 'associated' | 'pending' | 'failed' = 'associated') {
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id);
    const appointmentId = `9007199254740993${seq++}`;
    crm().addAppointment(appointmentId, {
      files: [
        {
          id: `old-${appointmentId}`,
          name: 'old.pdf',
          category: 'proposal',
          size: 5,
          contentType: 'application/pdf',
          bytes: Buffer.from('%PDF-'),
          uploadedAt: 0,
        },
      ],
    });
    await mapAppointment(h, project.id, appointmentId, mappingStatus, mappingStatus === 'failed' ? 'project already associated with an appointment' : null);
    return { project, drawing, appointmentId };
  }

  function expectSaleOf(appointmentId: string, drawingId: string, versionId: string) {
    const drawing = h.service.drawings.get(drawingId)!;
    const version = drawing.versions.find((v) => v.versionId === versionId)!;
    const sale = crm().get(appointmentId)!.sale as Record<string, unknown> & { items: SaleItem[] };
    const { line_items, ...totals } = version.lineItems;
    expect(sale).toMatchObject({ ...totals, drawing_id: drawingId, drawing_version_id: versionId });
    expect(sale.items).toEqual(
      line_items.map((item) => ({
        external_product_id: item.product_id ? (h.service.productConnections.get(item.product_id) ?? null) : null,
        product_id: item.product_id ?? null,
        name: item.name,
        sku: item.sku ?? null,
        unit: item.unit ?? null,
        quantity: item.quantity,
        price: item.price ?? null,
        cost: item.cost ?? null,
        total: item.total,
      })),
    );
    return sale;
  }

  beforeAll(() => {
    h.service.addTemplate('Standard');
    h.service.addTemplate('Premium');
    const fence = h.service.addProduct(); // drawings' default line items use the first two products
    h.service.addProduct();
    h.service.connectProduct(fence.id, '36029621652699999123');
  });

  it('export prompt yes: exported PDF replaces the proposal files, sale with connected products, then Sold', async () => {
    const { project, drawing, appointmentId } = await scenario();
    await deliverPrompt(h, { project_id: project.id, drawing_id: drawing.id, appointment_id: appointmentId, yes_no: true }, true);
    const entries = await settled(h, project.id, ['push_proposal_pdf', 'push_line_items', 'set_status']);
    expect(entries.map((e) => [e.kind, e.status])).toEqual([
      ['push_proposal_pdf', 'succeeded'],
      ['push_line_items', 'succeeded'],
      ['set_status', 'succeeded'],
    ]);

    const exported = h.service.exports.at(-1)!;
    expect(exported).toMatchObject({ templateId: [...h.service.templates.keys()][0], drawingId: drawing.id });
    const files = crm().filesOf(appointmentId, 'proposal');
    expect(files).toHaveLength(1);
    expect(files[0].bytes.equals(await download(exported.url))).toBe(true);

    const sale = expectSaleOf(appointmentId, drawing.id, drawing.versionId);
    expect(sale.items[0].external_product_id).toBe('36029621652699999123');
    expect(sale.items[1].external_product_id).toBeNull();
    expect(sale.items[2]).toMatchObject({ product_id: null, external_product_id: null, price: null });
    expect(crm().get(appointmentId)!.status).toBe('Sold');
    const writes = crmRequestsFor(appointmentId)
      .filter((r) => r.method !== 'GET')
      .map((r) => `${r.method} ${r.path.split('/').slice(3, 4).join('') || 'appointment'}`);
    expect(writes).toEqual(['POST files', 'DELETE files', 'PUT sale', 'PATCH appointment']);
  });

  it('export prompt yes uses PROPOSAL_TEMPLATE_ID when it is set', async () => {
    const { project, drawing, appointmentId } = await scenario();
    const premium = [...h.service.templates.values()][1];
    h.config.service.proposalTemplateId = premium.id;
    try {
      await deliverPrompt(h, { project_id: project.id, drawing_id: drawing.id, appointment_id: appointmentId, yes_no: true });
      await settled(h, project.id, ['push_proposal_pdf', 'push_line_items', 'set_status']);
    } finally {
      h.config.service.proposalTemplateId = null;
    }
    expect(h.service.exports.at(-1)).toMatchObject({ templateId: premium.id, drawingId: drawing.id });
    expect(crm().fileBytes(appointmentId, 'proposal')).toEqual([await download(h.service.exports.at(-1)!.url)]);
  });

  it('export prompt no: a skipped entry and no call to the CRM', async () => {
    const { project, drawing, appointmentId } = await scenario();
    await deliverPrompt(h, { project_id: project.id, drawing_id: drawing.id, appointment_id: appointmentId, yes_no: false });
    const [entry] = await settled(h, project.id, ['push_proposal_pdf']);
    expect(entry).toMatchObject({ status: 'skipped', target: appointmentId });
    expect(entry.detail).toContain('answered no');
    expect(crmRequestsFor(appointmentId)).toHaveLength(0);
  });

  it('export prompt naming another appointment than the mapping: failed with both ids, nothing pushed', async () => {
    const { project, drawing, appointmentId } = await scenario();
    await deliverPrompt(h, { project_id: project.id, drawing_id: drawing.id, appointment_id: '123456789012345678901', yes_no: true });
    const [entry] = await settled(h, project.id, ['push_proposal_pdf']);
    expect(entry.status).toBe('failed');
    expect(entry.error).toContain('123456789012345678901');
    expect(entry.error).toContain(appointmentId);
    expect(crmRequestsFor(appointmentId)).toHaveLength(0);
  });

  it('send action: 202 with the entry id, then line items and Sold; A3 answers are cached', async () => {
    const { project, drawing, appointmentId } = await scenario('pending');
    const a3Before = h.service.calls.a3;
    const res = await h.admin('/api/appointment-crm/send', { method: 'POST', json: { project_id: project.id, drawing_id: drawing.id } });
    expect(res.status).toBe(202);
    const { sync_log_ids } = (await res.json()) as { sync_log_ids: string[] };
    const entries = await settled(h, project.id, ['push_line_items', 'set_status']);
    expect(sync_log_ids).toEqual([entries[0].id]);
    expect(entries.map((e) => [e.kind, e.trigger, e.status])).toEqual([
      ['push_line_items', 'admin', 'succeeded'],
      ['set_status', 'admin', 'succeeded'],
    ]);
    expectSaleOf(appointmentId, drawing.id, drawing.versionId);
    expect(crm().get(appointmentId)!.status).toBe('Sold');
    expect(
      crm()
        .filesOf(appointmentId, 'proposal')
        .map((f) => f.id),
    ).toEqual([`old-${appointmentId}`]);
    expect(h.service.calls.a3).toBe(a3Before); // both products were looked up by the first test

    expect((await h.admin('/api/appointment-crm/send', { method: 'POST', json: { project_id: '1', drawing_id: drawing.id } })).status).toBe(404);
    expect((await h.admin('/api/appointment-crm/send', { method: 'POST', json: { project_id: project.id } })).status).toBe(400);
    const anonymous = await fetch(`${h.url}/api/appointment-crm/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: project.id, drawing_id: drawing.id }),
    });
    expect(anonymous.status).toBe(401);
  });

  it('APPROVED: the signed PDF replaces the proposal files, the approved version is sold, once per proposal', async () => {
    const { project, drawing, appointmentId } = await scenario();
    const firstVersion = drawing.versionId;
    h.service.updateDrawing(drawing.id, { lineItems: { ...drawing.lineItems, total: 999 } });
    const proposal = h.service.addProposal({
      project_id: project.id,
      status: 'APPROVED',
      approved_option: { id: 'opt-1', drawing_id: drawing.id, drawing_version_id: firstVersion },
    });
    await deliverEvent(h, events.proposalStatusChanged(proposal));
    await settled(h, project.id, ['push_proposal_pdf', 'push_line_items', 'set_status']);

    const files = crm().filesOf(appointmentId, 'proposal');
    expect(files).toHaveLength(1);
    expect(files[0].bytes.equals(await download(proposal.pdf_url!))).toBe(true);
    expect(expectSaleOf(appointmentId, drawing.id, firstVersion).total).not.toBe(999);
    expect(crm().get(appointmentId)!.status).toBe('Sold');

    // The deprecated event and a reconciliation replay of the same approval push nothing more.
    const uploads = crm().uploads.length;
    await deliverEvent(h, events.proposalApproved(proposal));
    await h.app.get(DeliveryRouterService).routeSynthetic(synthetic(events.proposalStatusChanged(proposal)));
    await waitFor(async () => (await inboxDeliveries(h, { status: 'received' })).length === 0, 15_000, 'the deprecated event to be routed');
    await new Promise((r) => setTimeout(r, 300));
    const kinds = (await entriesOf(h, project.id)).map((e) => e.kind);
    expect(kinds.filter((k) => k === 'push_proposal_pdf')).toHaveLength(1);
    expect(crm().uploads.length).toBe(uploads);
  });

  it('APPROVED with a signed PDF address that expired meanwhile: the proposal is read again for a fresh one', async () => {
    const { project, drawing, appointmentId } = await scenario();
    const proposal = h.service.addProposal({ project_id: project.id, status: 'APPROVED', approved_option: { drawing_id: drawing.id } });
    const expired = { ...proposal, pdf_url: `${h.service.url}/files/blobs/expired-${proposal.proposal_id}.pdf` };
    await deliverEvent(h, events.proposalStatusChanged(expired));
    const entries = await settled(h, project.id, ['push_proposal_pdf', 'push_line_items', 'set_status']);
    expect(entries.find((e) => e.kind === 'push_proposal_pdf')!.status).toBe('succeeded');
    const files = crm().filesOf(appointmentId, 'proposal');
    expect(files).toHaveLength(1);
    expect(files[0].bytes.equals(await download(proposal.pdf_url!))).toBe(true);
    expect(h.service.requestsTo('GET', '/v1/proposals').some((r) => r.query.get('project_id') === project.id)).toBe(true);
  });

  it('other proposal statuses: a skipped entry naming the status', async () => {
    const { project, appointmentId } = await scenario();
    const proposal = h.service.addProposal({ project_id: project.id, status: 'VOID', close_note: 'lost to a competitor' });
    await deliverEvent(h, events.proposalStatusChanged(proposal));
    const [entry] = await settled(h, project.id, ['push_proposal_pdf']);
    expect(entry.status).toBe('skipped');
    expect(entry.detail).toContain('VOID');
    expect(crmRequestsFor(appointmentId)).toHaveLength(0);
  });

  it('payment received: one note with amount, channel, method and date, also when replayed', async () => {
    const { project, drawing, appointmentId } = await scenario();
    const proposal = h.service.addProposal({ project_id: project.id, status: 'APPROVED' });
    const payment = h.service.addPayment(proposal.proposal_id, {
      paid_amount: 120.5,
      pay_channel: 'mark_as_paid',
      paid_date: '2025-03-04',
      payment_method: 'Check',
    });
    const body = events.paymentReceived(proposal.proposal_id, drawing.id, payment);
    await deliverEvent(h, body);
    const [entry] = await settled(h, project.id, ['add_note']);
    expect(entry.status).toBe('succeeded');
    const notes = crm().get(appointmentId)!.notes;
    expect(notes).toHaveLength(1);
    expect(notes[0].text).toContain('120.50');
    expect(notes[0].text).toContain('mark_as_paid');
    expect(notes[0].text).toContain('Check');
    expect(notes[0].text).toContain('2025-03-04');

    await h.app.get(DeliveryRouterService).routeSynthetic(synthetic(body));
    await new Promise((r) => setTimeout(r, 300));
    expect(crm().get(appointmentId)!.notes).toHaveLength(1);
  });

  it('a failed mapping: a skipped entry with its reason, nothing pushed', async () => {
    const { project, drawing, appointmentId } = await scenario('failed');
    await deliverEvent(h, events.drawingCreated(h.service.drawingView(drawing.id)));
    const [entry] = await settled(h, project.id, ['push_drawings']);
    expect(entry.status).toBe('skipped');
    expect(entry.detail).toContain('already associated');
    expect(crmRequestsFor(appointmentId)).toHaveLength(0);
  });

  /** A made-up delivery as reconciliation routes it, read from the event body the way a webhook is. */
  function synthetic(body: object): RoutedDelivery {
    const parsed = parseDelivery('events', Buffer.from(toJson(body)));
    if (parsed.kind !== 'valid') throw new Error(`not a valid event: ${JSON.stringify(parsed)}`);
    return {
      trigger: 'reconcile',
      inboxId: null,
      receivedAt: new Date(),
      shortId: `r${seq++}`,
      event: parsed.event,
      data: parsed.data,
      projectId: null,
    } as RoutedDelivery;
  }
});
