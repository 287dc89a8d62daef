import { SalesforceSim } from '../../sim/salesforce/index.js';
import { AppointmentActionsService } from '../../src/appointment-crm/appointment-actions.service.js';
import { dropDatabase } from '../../src/database/ensure-database.js';
import type { ActionEntry } from '../../src/actions/action.types.js';
import { startHarness, uniqueDatabaseUrl, waitFor, type Harness } from '../support/harness.js';

const APPOINTMENT = 'i360__Appointment__c';
const SALE = 'i360__Sale__c';
const SALE_ITEM = 'i360__Sale_Item__c';

/**
 * Two pushes of one appointment's sale at the same moment, on two replicas (in-process apps on one database), the
 * first one's sale create held by the org so that the second starts while the first is between its listing of the
 * older sales and its create: the appointment ends with one sale (the second push's), with its items.
 */
describe('one sale per appointment when two pushes race', () => {
  const sim = new SalesforceSim();
  const databaseUrl = uniqueDatabaseUrl();
  let replicas: Harness[] = [];

  beforeAll(async () => {
    await sim.start();
    const env = { ...sim.envFor(), APPOINTMENT_CRM_PUSHES: 'crm-sync', AUTOMATION_POLL_SECONDS: '0', QUEUE_PREFIX: `crm-sync-test-race-${process.pid}` };
    const first = await startHarness({ redisDb: 14, env, databaseUrl });
    replicas = [first, await startHarness({ redisDb: 14, env, databaseUrl })];
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.close()));
    await sim.stop();
    await dropDatabase(databaseUrl).catch(() => undefined);
  });

  it('keeps the newer push’s sale and deletes the other, never two', async () => {
    const service = replicas[0].service;
    // Both replicas' service simulators must know the drawings: the second replica reads its own.
    const project = service.addProject();
    const older = service.addDrawing(project.id);
    const newer = service.addDrawing(project.id, { lineItems: { ...service.drawings.get(older.id)!.lineItems, total: 4321 } });
    const other = replicas[1].service;
    other.projects.set(project.id, service.projects.get(project.id)!);
    for (const d of [older, newer]) other.drawings.set(d.id, service.drawings.get(d.id)!);

    const prospect = sim.insertRow('i360__Prospect__c', { Name: 'Ray Race', i360__Primary_Last_Name__c: 'Race' });
    const appointmentId = sim.insertRow(APPOINTMENT, { i360__Prospect__c: prospect });
    const entry = (id: string, drawingId: string, versionId: string): ActionEntry<'push_line_items'> =>
      ({
        id,
        kind: 'push_line_items',
        trigger: 'webhook',
        crm: 'appointment',
        projectId: project.id,
        target: appointmentId,
        status: 'running',
        attempts: 1,
        retryBase: 0,
        error: null,
        detail: null,
        payload: { drawing_id: drawingId, drawing_version_id: versionId },
      }) as unknown as ActionEntry<'push_line_items'>;

    // The first push's sale create is held by the org for 1.5 s (then applied).
    const creates = () => sim.instance.requestsTo('POST', /\/composite\/sobjects$/).length;
    const createsBefore = creates();
    sim.instance.injectFault({ method: 'POST', path: /\/composite\/sobjects$/, times: 1, delayMs: 1_500 });
    const first = replicas[0].app.get(AppointmentActionsService).pushLineItems(entry('900000001', older.id, service.drawings.get(older.id)!.versionId));
    await waitFor(() => creates() > createsBefore || null, 10_000, 'the first push’s sale create');
    const second = replicas[1].app.get(AppointmentActionsService).pushLineItems(entry('900000002', newer.id, service.drawings.get(newer.id)!.versionId));
    await Promise.all([first, second]);

    const sales = sim.rows(SALE).filter((s) => s.i360__Appointment__c === appointmentId);
    expect(sales).toHaveLength(1);
    const items = sim.rows(SALE_ITEM).filter((i) => sales.some((s) => s.Id === i.i360__Sale__c));
    expect(items).toHaveLength(service.drawings.get(newer.id)!.lineItems.line_items.length);
    // Only the sale's own items are left: the deleted sale's went with it.
    expect(sim.rows(SALE_ITEM).filter((i) => !sim.rows(SALE).some((s) => s.Id === i.i360__Sale__c))).toHaveLength(0);
  }, 60_000);
});
