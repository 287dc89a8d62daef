import pg from 'pg';
import { SalesforceSim } from '../../sim/salesforce/index.js';
import { deliverPrompt, mapAppointment } from '../support/appointment-crm.js';
import { terminateHolderWhileAnotherWaits } from '../support/advisory-locks.js';
import { syncLogEntries } from '../support/tables.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';

const APPOINTMENT = 'i360__Appointment__c';
const FINISHED = ['succeeded', 'failed', 'skipped'];

/**
 * A lost advisory lock (docs/guarantees.md, "When a lock is lost") with the appointment CRM on Salesforce and crm-sync
 * pushing: the file replace converges as with the REST adapter (a replace number in Postgres; the latest deletes the
 * category's other ContentDocuments, one overtaken only its own upload). The order is set by holding the first
 * run's listing of the files (its ContentDocumentLink query) until the second run has finished, never by time.
 */
describe('a lock lost in the middle of a file replace on Salesforce', () => {
  const sim = new SalesforceSim();
  let h: Harness;
  let db: pg.Client;
  beforeAll(async () => {
    await sim.start();
    h = await startHarness({
      redisDb: 12,
      env: { ...sim.daemonEnv(), APPOINTMENT_CRM_PUSHES: 'crm-sync' },
      // The held call must not time out: a time-out would fail the first run, whose retry would then converge anyway.
      tune: (config) => (config.http.timeoutMs = 120_000),
    });
    h.service.addTemplate('Standard');
    db = new pg.Client({ connectionString: h.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
    await sim.stop();
  });

  const entries = (where: { kind?: string; target?: string; projectId?: string }) => syncLogEntries(h, where);

  it("two replaces of an appointment's proposal files, the first one's lock lost before it deletes: one file, the newer one", async () => {
    const prospect = sim.insertRow('i360__Prospect__c', { Name: 'Lu Lock', i360__Primary_Last_Name__c: 'Lock' });
    const appointmentId = sim.insertRow(APPOINTMENT, { i360__Prospect__c: prospect });
    const project = h.service.addProject();
    const first = h.service.addDrawing(project.id);
    const second = h.service.addDrawing(project.id);
    await mapAppointment(h, project.id, appointmentId);
    const key = `appointment-files:${appointmentId}:proposal`;
    const isListing = (q: string | null) => (q ?? '').includes('FROM ContentDocumentLink') && (q ?? '').includes(appointmentId);
    const listings = () => sim.instance.requests.filter((r) => r.path.endsWith('/query') && isListing(r.query.get('q')));

    // The first replace has uploaded its PDF; its listing of the appointment's files is answered only when released.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    sim.instance.injectFault({ method: 'GET', path: /\/query$/, times: 1, until: held, when: (req) => isListing(req.query.get('q')) });
    try {
      await deliverPrompt(h, { project_id: project.id, drawing_id: first.id, appointment_id: appointmentId, yes_no: true });
      await waitFor(() => listings().length === 1 || null, 20_000, 'the held listing');
      await deliverPrompt(h, { project_id: project.id, drawing_id: second.id, appointment_id: appointmentId, yes_no: true });
      expect(await terminateHolderWhileAnotherWaits(db, key)).toBe(true);
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

    const pushes = await waitFor(
      async () => {
        const found = await entries({ kind: 'push_proposal_pdf', target: appointmentId });
        return found.length === 2 && found.every((e) => FINISHED.includes(e.status)) ? found : null;
      },
      60_000,
      'both replaces finished',
    );
    expect(pushes.map((e) => e.status)).toEqual(['succeeded', 'succeeded']);
    const overtaken = pushes.find((e) => e.payload.drawing_id === first.id)!;
    expect(overtaken.detail).toContain('uploaded and removed again: a newer replace of these files started meanwhile');
    // Exactly one file of the category in the org: the newer replace's; both uploads reached the org.
    expect(sim.filesOf(appointmentId).map((f) => f.pathOnClient)).toEqual([`proposal-${second.id}.pdf`]);
    expect(sim.instance.requestsTo('POST', /\/sobjects\/ContentVersion$/).length).toBe(2);
  }, 120_000);
});
