import { events } from '../../sim/service/index.js';
import { deliverEvent, mapAppointment, settled } from '../support/appointment-crm.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';
import { syncLogEntries } from '../support/tables.js';

/**
 * Two pushes of one appointment's drawings at once (a push slowed by the service, and the push of a newer version
 * beside it on another worker): the appointment must end with the newer PDF, whichever push finishes last. Found by
 * the soak (seed 745580559: "missing: the latest PDF of drawing …").
 */
describe('appointment CRM: a drawings push slowed in its reads beside a newer one', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 9, appointmentCrm: true });
  });
  afterAll(() => h.close());

  it('the slowed push, reading the older version, is overtaken: the appointment keeps the newer PDF alone', async () => {
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id, { name: 'Plan' });
    const appointmentId = '90071992547409977';
    h.appointmentCrm!.addAppointment(appointmentId);
    await mapAppointment(h, project.id, appointmentId);

    // The first push asks for the drawing's current version (D2), read as it is then and answered only when released.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    h.service.injectFault({ method: 'GET', path: `/v1/drawings/${drawing.id}/line_items`, times: 1, afterHandling: true, until: held });
    try {
      await deliverEvent(h, events.drawingCreated(h.service.drawingView(drawing.id)));
      await waitFor(() => h.service.faultsHit.some((hit) => hit.fault.until === held) || null, 20_000, "the first push's held read");

      // A new version, and its push, which runs to its end beside the held one.
      h.service.updateDrawing(drawing.id);
      await deliverEvent(h, events.drawingUpdated(h.service.drawingView(drawing.id)));
      await waitFor(
        async () => (await syncLogEntries(h, { kind: 'push_drawings', target: appointmentId, status: 'succeeded' })).length === 1 || null,
        30_000,
        'the newer push',
      );
      expect(h.appointmentCrm!.fileBytes(appointmentId, 'drawing')).toEqual([h.service.drawings.get(drawing.id)!.pdf]);
    } finally {
      release();
    }

    const pushes = (await settled(h, project.id, ['push_drawings'], 30_000)).filter((e) => e.kind === 'push_drawings');
    expect(pushes.map((e) => e.status)).toEqual(['succeeded', 'succeeded']);
    expect(h.appointmentCrm!.fileBytes(appointmentId, 'drawing')).toEqual([h.service.drawings.get(drawing.id)!.pdf]);
    expect(pushes[0].detail).toContain('uploaded and removed again');
  }, 90_000);
});
