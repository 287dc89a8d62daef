import { allActionsFinished, deliverEvent, mapAppointment, mappedAppointmentProject, reconciliation, settled } from '../support/appointment-crm.js';
import { events } from '../../sim/service/index.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';
import { mapRecord } from '../support/zoho-records.js';
import { inboxDeliveries, syncLogEntries } from '../support/tables.js';

type Json = Record<string, any>;

describe('reconciliation', () => {
  let h: Harness;
  let seq = 0;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 3, appointmentCrm: true, recordCrm: true, tune: (c) => (c.jobs.staleAfterMs = 0) });
    h.service.addTemplate('Standard');
  });
  afterAll(() => h.close());

  const reconcile = (json?: { scope: 'changes' | 'full' }) => reconciliation(h, json, 20_000);

  /** A project mapped to a fresh appointment, with one drawing. */
  const mappedProject = () => mappedAppointmentProject(h, `RC-${++seq}`);

  it('pushes an approval and a payment whose webhooks never came, once, and only once', async () => {
    const m = await mappedProject();
    const proposal = h.service.addProposal({ project_id: m.project.id, status: 'APPROVED', approved_option: { drawing_id: m.drawing.id } });
    h.service.addPayment(proposal.proposal_id, {
      paid_amount: 1200,
      pay_channel: 'mark_as_paid',
      paid_date: '2026-11-19',
      payment_method: 'ACH',
      status: 'succeeded',
    });

    const run = await reconcile();
    expect(run).toMatchObject({ kind: 'reconcile', trigger: 'admin', status: 'succeeded' });
    await settled(h, m.project.id, ['push_proposal_pdf', 'push_line_items', 'set_status', 'add_note']);
    await allActionsFinished(h);
    const appointment = h.appointmentCrm!.get(m.appointmentId)!;
    expect(appointment.status).toBe('Sold');
    expect(h.appointmentCrm!.filesOf(m.appointmentId, 'proposal')).toHaveLength(1);
    expect(appointment.notes).toHaveLength(1);
    expect(appointment.notes[0].text).toContain('1200.00');
    const entries = await syncLogEntries(h, { projectId: m.project.id });
    expect(entries.every((e) => e.trigger === 'reconcile')).toBe(true);

    const requestsBefore = h.appointmentCrm!.requests.length;
    const again = await reconcile();
    await allActionsFinished(h);
    expect(again.detail).toMatch(/ 0 action\(s\) created/);
    expect(h.appointmentCrm!.requests.length).toBe(requestsBefore);
    expect(h.appointmentCrm!.get(m.appointmentId)!.notes).toHaveLength(1);
  });

  it('pushes drawings whose versions changed without a webhook (a full pass)', async () => {
    const m = await mappedProject();
    await reconcile({ scope: 'full' });
    await allActionsFinished(h);
    const first = h.appointmentCrm!.fileBytes(m.appointmentId, 'drawing');
    expect(first).toHaveLength(1);

    h.service.updateDrawing(m.drawing.id);
    await reconcile({ scope: 'full' });
    await allActionsFinished(h);
    const second = h.appointmentCrm!.fileBytes(m.appointmentId, 'drawing');
    expect(second).toHaveLength(1);
    expect(second[0].equals(first[0])).toBe(false);
    expect(second[0].toString()).toContain('v2');
  });

  it('associates pending mappings', async () => {
    const project = h.service.addProject();
    await mapAppointment(h, project.id, `RC-PENDING-${++seq}`, 'pending');
    await reconcile();
    await waitFor(() => h.service.appointmentAssociations.get(project.id), 15_000, 'the association');
  });

  it('routes a stored delivery whose job was lost', async () => {
    const body = Buffer.from(JSON.stringify(events.projectUpdated(h.service.addProject())));
    await h.database.query(`INSERT INTO webhook_inbox (endpoint, event, body, body_hash, status) VALUES ('events', 'project.updated', $1, $2, 'received')`, [
      body,
      Buffer.alloc(32, ++seq),
    ]);
    await reconcile();
    await waitFor(async () => (await inboxDeliveries(h, { body }))[0]?.status === 'routed', 15_000, 'the delivery to be routed');
  });

  it('with both CRMs on, a payment of a project mapped to both becomes a note in each', async () => {
    const m = await mappedProject();
    const recordId = h.zoho!.addRecord('Deals');
    await mapRecord(h, m.project.id, recordId);
    const proposal = h.service.addProposal({ project_id: m.project.id, status: 'APPROVED', approved_option: { drawing_id: m.drawing.id } });
    const payment = h.service.addPayment(proposal.proposal_id, {
      paid_amount: 75.25,
      pay_channel: 'mark_as_paid',
      paid_date: '2026-11-18',
      payment_method: 'Cash',
      status: 'succeeded',
    });
    await deliverEvent(h, events.paymentReceived(proposal.proposal_id, m.drawing.id, payment));
    // The CRM holds the note a moment before the log entry is marked succeeded: wait for the log.
    const notes = await waitFor(
      async () => {
        const entries = await syncLogEntries(h, { projectId: m.project.id, kind: 'add_note' });
        return entries.length === 2 && entries.every((e) => e.status !== 'queued' && e.status !== 'running') ? entries : null;
      },
      15_000,
      'both note actions to finish',
    );
    expect(notes.map((e) => `${e.crm}:${e.status}`).sort()).toEqual(['appointment:succeeded', 'record:succeeded']);
    expect(h.appointmentCrm!.get(m.appointmentId)!.notes).toHaveLength(1);
    expect(h.zoho!.notesOf('Deals', recordId)).toHaveLength(1);
  });

  it('runs one reconciliation at a time', async () => {
    const answers = await Promise.all([1, 2, 3].map(() => h.admin('/api/reconcile', { method: 'POST' }).then((r) => r.json() as Promise<Json>)));
    const ids = new Set(answers.map((a) => a.id));
    const runs = await waitFor(
      async () => {
        const entries = await syncLogEntries(h, { id: [...ids] });
        return entries.every((e) => ['succeeded', 'skipped'].includes(e.status)) ? entries : null;
      },
      20_000,
      'the runs',
    );
    // Joined while waiting (one id), or refused by the lock while another ran (skipped): never two at once.
    const overlapping = runs
      .filter((a) => a.status === 'succeeded')
      .some((a) => runs.some((b) => b !== a && b.status === 'succeeded' && a.startedAt! < b.finishedAt! && b.startedAt! < a.finishedAt!));
    expect(overlapping).toBe(false);
  });
});
