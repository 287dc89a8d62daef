import { AppointmentDeliveriesService } from '../../src/appointment-crm/appointment-deliveries.service.js';
import { AppointmentDrawingPushRepository } from '../../src/appointment-crm/appointment-drawing-push.repository.js';
import { ActionRecorderService } from '../../src/actions/action-recorder.service.js';
import { SyncLogRepository } from '../../src/sync-log/sync-log.repository.js';
import { makePdf } from '../../sim/common/sim-server.js';
import { deliverEvent, mapAppointment, settled } from '../support/appointment-crm.js';
import { events } from '../../sim/service/index.js';
import { startHarness, waitFor, type Harness } from '../support/harness.js';

/** Drawings: every drawing of the project (all P8 pages) replaces the appointment's drawing files. */
describe('appointment CRM: drawings', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 9, appointmentCrm: true });
  });
  afterAll(() => h.close());

  const crm = () => h.appointmentCrm!;
  const sortedHex = (buffers: Buffer[]) => buffers.map((b) => b.toString('hex')).sort();
  const pdfsOf = (projectId: string) => [...h.service.drawings.values()].filter((d) => d.projectId === projectId).map((d) => d.pdf);
  const oldFile = (id: string, label: string, category: 'drawing' | 'proposal' = 'drawing') => {
    const bytes = makePdf(label);
    return { id, name: `${label}.pdf`, category, size: bytes.length, contentType: 'application/pdf', bytes, uploadedAt: 0 };
  };

  it('pushes every drawing across two P8 pages and replaces exactly the old drawing files', async () => {
    const project = h.service.addProject();
    const drawings = Array.from({ length: 101 }, (_, i) => h.service.addDrawing(project.id, { name: `Sheet ${i + 1}` }));
    const appointmentId = '90071992547409931';
    crm().addAppointment(appointmentId, {
      files: [oldFile('old-1', 'old drawing 1'), oldFile('old-2', 'old drawing 2'), oldFile('keep-1', 'a proposal', 'proposal')],
    });
    await mapAppointment(h, project.id, appointmentId);

    await deliverEvent(h, events.drawingUpdated(h.service.drawingView(drawings[0].id)));
    const entries = await settled(h, project.id, ['push_drawings'], 30_000);
    const push = entries.find((e) => e.kind === 'push_drawings')!;
    expect(push).toMatchObject({ status: 'succeeded', target: appointmentId, trigger: 'webhook', attempts: 1 });

    expect(h.service.requestsTo('GET', `/v1/projects/${project.id}/drawings`).map((r) => r.query.get('page'))).toEqual(['1', '2', '3']);
    expect(sortedHex(crm().fileBytes(appointmentId, 'drawing'))).toEqual(sortedHex(pdfsOf(project.id)));
    expect(
      crm()
        .filesOf(appointmentId, 'drawing')
        .map((f) => f.id),
    ).not.toEqual(expect.arrayContaining(['old-1']));
    expect(crm().filesOf(appointmentId, 'drawing')).toHaveLength(101);
    expect(
      crm()
        .filesOf(appointmentId, 'proposal')
        .map((f) => f.id),
    ).toEqual(['keep-1']);
    expect(
      crm()
        .filesOf(appointmentId, 'drawing')
        .find((f) => f.bytes.equals(drawings[100].pdf))?.name,
    ).toBe('Sheet 101.pdf');

    const pushed = await h.app.get(AppointmentDrawingPushRepository).findByAppointment(appointmentId);
    expect(pushed).toHaveLength(101);
    expect(pushed.find((p) => p.drawingId === drawings[5].id)?.drawingVersionId).toBe(drawings[5].versionId);
  });

  it('coalesces a burst of five drawing events into one or two pushes that end on the latest PDFs', async () => {
    const project = h.service.addProject();
    const drawings = [h.service.addDrawing(project.id), h.service.addDrawing(project.id)];
    const appointmentId = '90071992547409932';
    crm().addAppointment(appointmentId, { files: [oldFile('old-3', 'old drawing 3')] });
    await mapAppointment(h, project.id, appointmentId);
    const uploadsBefore = crm().uploads.length;

    for (let i = 0; i < 5; i++) {
      const drawing = h.service.updateDrawing(drawings[i % 2].id);
      await deliverEvent(h, events.drawingUpdated(h.service.drawingView(drawing.id)));
    }
    await settled(h, project.id, ['push_drawings']);
    await new Promise((r) => setTimeout(r, h.config.jobs.drawingsCoalesceMs + 500)); // a late joiner would run by now
    const pushes = (await settled(h, project.id, ['push_drawings'])).filter((e) => e.kind === 'push_drawings');
    expect(pushes.every((e) => e.status === 'succeeded')).toBe(true);
    expect(pushes.length).toBeGreaterThanOrEqual(1);
    expect(pushes.length).toBeLessThanOrEqual(2);
    expect(crm().uploads.length - uploadsBefore).toBe(2 * pushes.length);
    expect(sortedHex(crm().fileBytes(appointmentId, 'drawing'))).toEqual(sortedHex(pdfsOf(project.id)));
  });

  it('converges on exactly the new files when a push dies between upload and delete and runs again', async () => {
    const project = h.service.addProject();
    h.service.addDrawing(project.id);
    h.service.addDrawing(project.id);
    const appointmentId = '90071992547409933';
    crm().addAppointment(appointmentId, { files: [oldFile('old-4', 'old drawing 4')] });
    await mapAppointment(h, project.id, appointmentId);
    // The listing that precedes the deletes fails for good: the run ends after both uploads, as a crash there would.
    crm().injectFault({ method: 'GET', path: `/appointments/${appointmentId}/files`, status: 400, times: 1 });

    await deliverEvent(h, events.drawingCreated(h.service.drawingView([...h.service.drawings.values()].at(-1)!.id)));
    const [failed] = (await settled(h, project.id, ['push_drawings'])).filter((e) => e.kind === 'push_drawings');
    expect(failed.status).toBe('failed');
    expect(crm().filesOf(appointmentId, 'drawing')).toHaveLength(3); // the old one and both new ones

    expect(await h.app.get(ActionRecorderService).retry(failed.id)).not.toBeNull();
    await waitFor(async () => (await h.app.get(SyncLogRepository).get(failed.id))?.status === 'succeeded', 10_000, 'the run again');

    expect(crm().filesOf(appointmentId, 'drawing')).toHaveLength(2);
    expect(sortedHex(crm().fileBytes(appointmentId, 'drawing'))).toEqual(sortedHex(pdfsOf(project.id)));
    expect(crm().uploads.filter((u) => u.appointmentId === appointmentId)).toHaveLength(4);
  });

  it('uploads two drawings of the same name, each under its own Idempotency-Key', async () => {
    const project = h.service.addProject();
    h.service.addDrawing(project.id, { name: 'Kitchen' });
    const last = h.service.addDrawing(project.id, { name: 'Kitchen' });
    const appointmentId = '90071992547409935';
    crm().addAppointment(appointmentId);
    await mapAppointment(h, project.id, appointmentId);
    await deliverEvent(h, events.drawingCreated(h.service.drawingView(last.id)));
    const [push] = (await settled(h, project.id, ['push_drawings'])).filter((e) => e.kind === 'push_drawings');
    expect(push.status).toBe('succeeded');
    expect(sortedHex(crm().fileBytes(appointmentId, 'drawing'))).toEqual(sortedHex(pdfsOf(project.id)));
    const keys = crm()
      .requestsTo('POST', `/appointments/${appointmentId}/files`)
      .map((r) => r.headers['idempotency-key']);
    expect(keys).toEqual([`crm-sync:${push.id}:run-1:upload-drawing:1:Kitchen.pdf`, `crm-sync:${push.id}:run-1:upload-drawing:2:Kitchen.pdf`]);
  });

  it('reconciliation asks for a push only when a drawing version differs from the last push', async () => {
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id);
    const appointmentId = '90071992547409934';
    crm().addAppointment(appointmentId);
    await mapAppointment(h, project.id, appointmentId, 'pending');
    const handler = h.app.get(AppointmentDeliveriesService, { strict: false });

    expect(await handler.reconcileProject(project.id)).toEqual([
      expect.objectContaining({ kind: 'push_drawings', target: appointmentId, coalesceKey: `push_drawings:${appointmentId}` }),
    ]);
    await deliverEvent(h, events.drawingCreated(h.service.drawingView(drawing.id)));
    await settled(h, project.id, ['push_drawings']);
    expect(await handler.reconcileProject(project.id)).toEqual([]);

    h.service.updateDrawing(drawing.id);
    expect(await handler.reconcileProject(project.id)).toHaveLength(1);
    expect(await handler.reconcileProject(h.service.addProject().id)).toEqual([]); // unmapped
  });
});
