import pg from 'pg';
import { events } from '../../sim/service/index.js';
import { SalesforceSim } from '../../sim/salesforce/index.js';
import { deliverEvent, mapAppointment, settled } from '../support/appointment-crm.js';
import { terminateHolderWhileAnotherWaits } from '../support/advisory-locks.js';
import { syncLogEntries } from '../support/tables.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';

const APPOINTMENT = 'i360__Appointment__c';

/**
 * An upload to Salesforce cannot be called back once sent. A drawings push loses its lock while its upload is held by
 * the org; a newer push replaces the files meanwhile; the org applies the first upload only after the push stopped
 * waiting for its answer and after the newer push listed the files. Found by the soak (seed 400502900: a
 * `push_drawings` whose job lock could not be renewed left a PDF beside the newer push's files). The order is set by
 * holding the upload until the newer push has finished and the first push tries its upload again, never by time.
 */
describe('a lost lock and an upload applied after its answer was lost, on Salesforce', () => {
  const sim = new SalesforceSim();
  let h: Harness;
  let db: pg.Client;
  beforeAll(async () => {
    await sim.start();
    h = await startHarness({
      redisDb: 15,
      env: { ...sim.daemonEnv(), APPOINTMENT_CRM_PUSHES: 'crm-sync' },
      // The held upload goes unanswered after 4 s; the push waits as long again before its next try, within the run.
      tune: (config) => {
        config.http.uploadTimeoutMs = 4_000;
        config.http.retry.maxInlineRetryAfterMs = 10_000;
      },
    });
    db = new pg.Client({ connectionString: h.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await h?.close();
    await sim.stop();
  });

  it("ends with exactly one file of the drawing, the latest version's", async () => {
    const prospect = sim.insertRow('i360__Prospect__c', { Name: 'Ula Upload', i360__Primary_Last_Name__c: 'Upload' });
    const appointmentId = sim.insertRow(APPOINTMENT, { i360__Prospect__c: prospect });
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id, { name: 'Plan' });
    await mapAppointment(h, project.id, appointmentId);

    // The first push's upload reaches the org, which applies it only when released.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    sim.instance.injectFault({ method: 'POST', path: /\/sobjects\/ContentVersion$/, times: 1, until: held });
    try {
      await deliverEvent(h, events.drawingCreated(h.service.drawingView(drawing.id)));
      await waitFor(() => sim.instance.faultsHit.some((hit) => hit.fault.until === held) || null, 20_000, "the first push's held upload");

      // A newer version, whose push waits for the lock; the first push's lock is lost, and the newer push runs to its end.
      h.service.updateDrawing(drawing.id);
      await deliverEvent(h, events.drawingUpdated(h.service.drawingView(drawing.id)));
      expect(await terminateHolderWhileAnotherWaits(db, `appointment-files:${appointmentId}:drawing`)).toBe(true);
      await waitFor(
        async () => (await syncLogEntries(h, { kind: 'push_drawings', target: appointmentId, status: 'succeeded' })).length > 0 || null,
        60_000,
        'the newer push',
      );
      // The first push gave up on its upload's answer and tries again; the org applies the held upload only now.
      await waitFor(() => sim.instance.requestsTo('POST', /\/sobjects\/ContentVersion$/).length >= 3 || null, 30_000, "the first push's next try");
    } finally {
      release();
    }

    const pushes = (await settled(h, project.id, ['push_drawings'], 90_000)).filter((e) => e.kind === 'push_drawings');
    expect(pushes.map((e) => e.status)).toEqual(['succeeded', 'succeeded']);
    const files = sim.filesOf(appointmentId);
    expect(files.map((f) => f.pathOnClient)).toHaveLength(1);
    expect(files[0].bytes).toEqual(h.service.drawings.get(drawing.id)!.pdf);
  }, 150_000);
});
