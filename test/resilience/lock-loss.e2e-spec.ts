import pg from 'pg';
import { deliverPrompt, mapAppointment } from '../support/appointment-crm.js';
import { events, recordPrompt, WebhookSender } from '../../sim/service/index.js';
import { dealReadyForQuotes } from '../support/zoho-records.js';
import { terminateHolderWhileAnotherWaits as terminateHolder } from '../support/advisory-locks.js';
import { syncLogEntries } from '../support/tables.js';
import { CapturingLogger, EVENTS_SECRET, RECORD_PROMPT_SECRET, startHarness, waitFor, type Harness } from '../support/harness.js';

const sender = new WebhookSender();
type Where = { kind?: string; target?: string; projectId?: string };
const FINISHED = ['succeeded', 'failed', 'skipped'];

/**
 * A lost advisory lock (docs/guarantees.md, "When a lock is lost"): the session holding it is terminated
 * (`pg_terminate_backend`, as a Postgres restart or a cut network would end it) while its work waits on a CRM, and a
 * second run of the same work takes the lock at once. The order is set by holding the first run's CRM call until the
 * second has finished, never by time.
 */
describe('a lock lost in the middle of its work', () => {
  let h: Harness;
  let db: pg.Client;
  const logs = new CapturingLogger();
  beforeAll(async () => {
    h = await startHarness({
      redisDb: 12,
      logger: logs,
      appointmentCrm: true,
      recordCrm: true,
      // The held call must not time out: a time-out would fail the first run, whose retry would then converge anyway.
      tune: (config) => (config.http.timeoutMs = 120_000),
    });
    h.service.addTemplate('Standard');
    db = new pg.Client({ connectionString: h.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db.end();
    await h.close();
  });

  async function terminateHolderWhileAnotherWaits(key: string): Promise<void> {
    expect(await terminateHolder(db, key)).toBe(true);
  }

  const entries = (where: Where) => syncLogEntries(h, where);

  async function allFinished(where: Where, count: number): ReturnType<typeof entries> {
    return waitFor(
      async () => {
        const found = await entries(where);
        return found.length >= count && found.every((e) => FINISHED.includes(e.status)) ? found : null;
      },
      60_000,
      `${count} finished entries of ${JSON.stringify(where)}`,
    );
  }

  it("two replaces of an appointment's proposal files, the first one's lock lost before it deletes: one file, the newer one", async () => {
    const appointmentId = '90071992547409931';
    const project = h.service.addProject();
    const first = h.service.addDrawing(project.id);
    const second = h.service.addDrawing(project.id);
    h.appointmentCrm!.addAppointment(appointmentId);
    await mapAppointment(h, project.id, appointmentId);
    const key = `appointment-files:${appointmentId}:proposal`;

    // The first replace has uploaded its PDF; its listing of the files is answered only when released.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    h.appointmentCrm!.injectFault({ method: 'GET', path: `/appointments/${appointmentId}/files`, times: 1, until: held });
    try {
      await deliverPrompt(h, { project_id: project.id, drawing_id: first.id, appointment_id: appointmentId, yes_no: true });
      await waitFor(() => h.appointmentCrm!.requestsTo('GET', `/appointments/${appointmentId}/files`).length === 1 || null, 20_000, 'the held listing');
      await deliverPrompt(h, { project_id: project.id, drawing_id: second.id, appointment_id: appointmentId, yes_no: true });
      await terminateHolderWhileAnotherWaits(key);
      // The second replace takes the lock and runs to its end: it uploads, lists both files and deletes the first's.
      const done = await waitFor(
        async () =>
          (await entries({ kind: 'push_proposal_pdf', target: appointmentId })).find((e) => e.payload.drawing_id === second.id && e.status === 'succeeded'),
        30_000,
        'the second replace',
      );
      expect(done.detail).toContain('1 old proposal file(s) deleted');
    } finally {
      release();
    }

    const pushes = await allFinished({ kind: 'push_proposal_pdf', target: appointmentId }, 2);
    expect(pushes.map((e) => e.status)).toEqual(['succeeded', 'succeeded']);
    await allFinished({ projectId: project.id }, 6); // both chains: PDF, sale, status
    const files = h.appointmentCrm!.get(appointmentId)!.files.filter((f) => f.category === 'proposal');
    expect(files.map((f) => f.name)).toEqual([`proposal-${second.id}.pdf`]);
    const overtaken = pushes.find((e) => e.payload.drawing_id === first.id)!;
    expect(overtaken.detail).toContain('uploaded and removed again: a newer replace of these files started meanwhile');
  }, 120_000);

  it("two pushes of a drawing's Quote to one Deal, the first one's lock lost after it looked for the Quote: one Quote", async () => {
    const { projectId, drawingId, dealId } = await dealReadyForQuotes(h, '4150868000000000777');
    const key = `zoho-quote:${dealId}:${drawingId}`;
    const target = `Deals/${dealId}`;

    // The first push looks for the drawing's Quote (there is none yet); the answer arrives only when released.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // (Only the Quote's lookup: the products are looked up with COQL too, before the lock is taken.)
    h.zoho!.api.injectFault({
      path: /^\/crm\/v8\/(Quotes\/search|coql)$/,
      when: (req) => req.path.endsWith('/Quotes/search') || /\bfrom\s+Quotes\b/i.test(req.body.toString()),
      times: 1,
      afterHandling: true,
      until: held,
    });
    try {
      const prompt = recordPrompt({ drawing_id: drawingId, record_crm_module: 'Deals', record_crm_record_id: dealId, yes_no: true });
      expect((await sender.deliverOnce(`${h.url}/webhooks/record-crm/export-prompt`, prompt, { secret: RECORD_PROMPT_SECRET })).status).toBe(200);
      await waitFor(() => h.zoho!.api.faultsHit.some((hit) => hit.fault.until === held) || null, 20_000, 'the held lookup');
      // The proposal pricing this drawing is approved: a second push of the same Quote, which waits for the lock.
      const proposal = h.service.addProposal({ project_id: projectId, status: 'APPROVED', approved_option: { drawing_id: drawingId } });
      expect((await sender.deliverOnce(`${h.url}/webhooks/events`, events.proposalStatusChanged(proposal), { secret: EVENTS_SECRET })).status).toBe(200);
      await terminateHolderWhileAnotherWaits(key);
      await waitFor(() => h.zoho!.revenue.quotesOfDeal(dealId).length === 1 || null, 30_000, "the second push's Quote");
    } finally {
      release();
    }

    const pushes = await allFinished({ kind: 'push_quote', target }, 2);
    expect(pushes.map((e) => e.status)).toEqual(['succeeded', 'succeeded']);
    expect(h.zoho!.revenue.quotesOfDeal(dealId)).toHaveLength(1);
  }, 120_000);
});
