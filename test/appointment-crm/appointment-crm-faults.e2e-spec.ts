import { withAdvisoryLock } from '../../src/database/advisory-lock.js';
import type { SyncLogEntry } from '../../src/sync-log/sync-log.row.js';
import { deliverEvent, entriesOf, mapAppointment, settled } from '../support/appointment-crm.js';
import { events, type SimDrawing } from '../../sim/service/index.js';
import { CapturingLogger, startHarness, waitFor, type Harness } from '../support/harness.js';

/** How the appointment CRM's failures are met: retried when transient, failed at once otherwise. */
describe('appointment CRM: failures', () => {
  let h: Harness;
  let seq = 0;
  const logs = new CapturingLogger();
  beforeAll(async () => {
    h = await startHarness({
      redisDb: 11,
      appointmentCrm: true,
      logger: logs,
      // The client's tries as by default (4, Retry-After as by default), 50 ms to 400 ms apart rather than 500 ms to 8 s.
      tune: (c) => Object.assign(c.http.retry, { baseDelayMs: 50, maxDelayMs: 400 }),
    });
  });
  afterAll(() => h.close());

  const crm = () => h.appointmentCrm!;

  async function scenario(seedAppointment = true) {
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id);
    const appointmentId = `9007199254740995${seq++}`;
    if (seedAppointment) crm().addAppointment(appointmentId);
    await mapAppointment(h, project.id, appointmentId);
    return { project, drawing, appointmentId };
  }

  const send = async (projectId: string, drawingId: string) => {
    const res = await h.admin('/api/appointment-crm/send', { method: 'POST', json: { project_id: projectId, drawing_id: drawingId } });
    expect(res.status).toBe(202);
  };

  it('retries a CRM 503 twice, then succeeds', async () => {
    const { project, drawing, appointmentId } = await scenario();
    crm().injectFault({ method: 'PUT', path: `/appointments/${appointmentId}/sale`, status: 503, times: 2 });
    await send(project.id, drawing.id);
    const entries = await settled(h, project.id, ['push_line_items', 'set_status']);
    expect(entries.map((e) => e.status)).toEqual(['succeeded', 'succeeded']);
    expect(crm().requestsTo('PUT', `/appointments/${appointmentId}/sale`)).toHaveLength(3);
    expect(crm().get(appointmentId)!.status).toBe('Sold');
    // One fact, one key: every try of the sale carries the same Idempotency-Key, named after its sync log entry.
    const keys = crm()
      .requestsTo('PUT', `/appointments/${appointmentId}/sale`)
      .map((r) => r.headers['idempotency-key']);
    expect(keys).toEqual(Array(3).fill(`crm-sync:${entries[0].id}:sale`));
    expect(crm().requestsTo('PATCH', `/appointments/${appointmentId}`)[0].headers['idempotency-key']).toBe(`crm-sync:${entries[1].id}:status`);
  });

  /** A payment of the scenario's project, delivered; answers its note's sync log entry once it has finished. */
  async function paymentNote(s: Awaited<ReturnType<typeof scenario>>, paidAmount: number): Promise<SyncLogEntry> {
    const notesSoFar = async () => (await entriesOf(h, s.project.id)).filter((e) => e.kind === 'add_note');
    const before = (await notesSoFar()).length;
    const proposal = h.service.addProposal({ project_id: s.project.id, status: 'APPROVED' });
    const payment = h.service.addPayment(proposal.proposal_id, { paid_amount: paidAmount, pay_channel: 'mark_as_paid', paid_date: '2026-11-24' });
    await deliverEvent(h, events.paymentReceived(proposal.proposal_id, s.drawing.id, payment));
    await settled(h, s.project.id, ['add_note'], 20_000);
    return waitFor(async () => (await notesSoFar())[before], 20_000, 'the note of the payment');
  }

  it('a note the CRM applied but whose answer was lost is found by the retry, not added twice', async () => {
    const s = await scenario();
    const notesPath = `/appointments/${s.appointmentId}/notes`;
    // A CRM that ignores the Idempotency-Key: only the notes listing can tell that the note got through.
    crm().honoursIdempotencyKeys = false;
    crm().injectFault({ method: 'POST', path: notesPath, times: 1, afterHandling: true, dropConnection: true });
    let entry: SyncLogEntry;
    try {
      entry = await paymentNote(s, 64);
    } finally {
      crm().honoursIdempotencyKeys = true;
    }
    expect(entry.status).toBe('succeeded');
    const notes = crm().get(s.appointmentId)!.notes;
    expect(notes).toHaveLength(1);
    expect(notes[0].text).toContain('64.00');
    expect(crm().requestsTo('POST', notesPath)).toHaveLength(1);
    expect(crm().requestsTo('GET', notesPath)).toHaveLength(2); // before the note, and after its answer was lost
    expect(entry.detail).toBe(`note already on appointment ${s.appointmentId} (note ${notes[0].id})`);
  }, 30_000);

  it('a CRM without the notes listing (an older implementation) still gets its note, unchecked', async () => {
    const s = await scenario();
    const notesPath = `/appointments/${s.appointmentId}/notes`;
    crm().listsNotes = false;
    let entry: SyncLogEntry;
    try {
      entry = await paymentNote(s, 66);
    } finally {
      crm().listsNotes = true;
    }
    expect(entry).toMatchObject({
      status: 'succeeded',
      detail: `note added to appointment ${s.appointmentId} (the CRM cannot list notes: added without looking for an earlier one)`,
    });
    expect(
      crm()
        .get(s.appointmentId)!
        .notes.map((n) => n.text),
    ).toEqual([expect.stringContaining('66.00')]);
    expect(
      crm()
        .requestsTo('POST', notesPath)
        .map((r) => r.headers['idempotency-key']),
    ).toEqual([`crm-sync:${entry.id}:note`]);
  }, 30_000);

  it('retries a failed upload together with its download (a stream is sent once)', async () => {
    const { project, drawing, appointmentId } = await scenario();
    crm().injectFault({ method: 'POST', path: `/appointments/${appointmentId}/files`, status: 503, times: 2 });
    await deliverEvent(h, events.drawingCreated(h.service.drawingView(drawing.id)));
    const [entry] = await settled(h, project.id, ['push_drawings']);
    expect(entry.status).toBe('succeeded');
    expect(h.service.requestsTo('GET', new RegExp(`^/files/drawings/${drawing.id}/`))).toHaveLength(3);
    expect(crm().fileBytes(appointmentId, 'drawing')).toEqual([drawing.pdf]);
  });

  it('honours a 429 Retry-After: a short one in the client, a long one by delaying the job', async () => {
    const { project, drawing, appointmentId } = await scenario();
    crm().injectFault({ method: 'PUT', path: `/appointments/${appointmentId}/sale`, status: 429, retryAfterSeconds: 1, times: 1 });
    crm().injectFault({ method: 'PATCH', path: `/appointments/${appointmentId}`, status: 429, retryAfterSeconds: 4, times: 1 });
    await send(project.id, drawing.id);
    const entries = await settled(h, project.id, ['push_line_items', 'set_status'], 20_000);
    expect(entries.map((e) => [e.kind, e.status, e.attempts])).toEqual([
      ['push_line_items', 'succeeded', 1],
      ['set_status', 'succeeded', 2],
    ]);
    const puts = crm().requestsTo('PUT', `/appointments/${appointmentId}/sale`);
    expect(puts[1].at - puts[0].at).toBeGreaterThanOrEqual(950);
    const patches = crm().requestsTo('PATCH', `/appointments/${appointmentId}`);
    expect(patches).toHaveLength(2);
    expect(patches[1].at - patches[0].at).toBeGreaterThanOrEqual(3_950);
  }, 30_000);

  it('retries a CRM time-out', async () => {
    const { project, drawing, appointmentId } = await scenario();
    crm().injectFault({ method: 'PATCH', path: `/appointments/${appointmentId}`, delayMs: h.config.http.timeoutMs + 1_500, times: 1 });
    await send(project.id, drawing.id);
    const entries = await settled(h, project.id, ['push_line_items', 'set_status'], 20_000);
    expect(entries.map((e) => e.status)).toEqual(['succeeded', 'succeeded']);
    expect(crm().requestsTo('PATCH', `/appointments/${appointmentId}`).length).toBeGreaterThanOrEqual(2);
  }, 30_000);

  it('does not retry a drawing push that failed while a newer one was queued: the newer one pushes the current drawings', async () => {
    const { project, drawing, appointmentId } = await scenario();
    const pushes = async () => (await entriesOf(h, project.id)).filter((e) => e.kind === 'push_drawings');
    const appointment = `/appointments/${appointmentId}`;
    // Every try of the first push's first CRM call fails: its run fails transiently.
    crm().injectFault({ method: 'GET', path: appointment, status: 503, times: h.config.http.retry.attempts });
    // The first push waits for this lock (one replace of the appointment's drawing files at a time) before calling
    // the CRM, so it is still running when the second drawing's push is recorded.
    let release!: () => void;
    let taken!: () => void;
    const lockTaken = new Promise<void>((resolve) => (taken = resolve));
    const lock = withAdvisoryLock(h.databaseUrl, `appointment-files:${appointmentId}:drawing`, async () => {
      taken();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await lockTaken;
    const coalesceMs = h.config.jobs.drawingsCoalesceMs;
    let first: SyncLogEntry;
    let second: SyncLogEntry;
    let newDrawing: SimDrawing;
    try {
      await deliverEvent(h, events.drawingCreated(h.service.drawingView(drawing.id)));
      first = await waitFor(async () => (await pushes()).find((e) => e.status === 'running'), 10_000, 'the first push to run');
      // The second push waits long enough to be still queued when the first one's run fails (its four tries, about
      // 0.35 s apart in all here).
      h.config.jobs.drawingsCoalesceMs = 2_000;
      newDrawing = h.service.addDrawing(project.id);
      await deliverEvent(h, events.drawingCreated(h.service.drawingView(newDrawing.id)));
      second = await waitFor(async () => (await pushes()).find((e) => e.id !== first.id), 10_000, 'the second push to be recorded');
      expect(second.status).toBe('queued');
    } finally {
      h.config.jobs.drawingsCoalesceMs = coalesceMs;
      release();
      await lock;
    }

    const superseded = await waitFor(async () => (await pushes()).find((e) => e.id === first.id && e.status === 'skipped'), 10_000, 'the first push skipped');
    expect(superseded).toMatchObject({
      attempts: 1,
      coalesceKey: null,
      detail: `superseded by #${second.id}, queued during this run, which does the same work on current data`,
    });
    expect(superseded.error).toContain('HTTP 503');
    expect(superseded.finishedAt).toEqual(expect.any(Date));
    const entries = await settled(h, project.id, ['push_drawings'], 20_000);
    expect(entries.filter((e) => e.kind === 'push_drawings').map((e) => [e.id, e.status, e.attempts])).toEqual([
      [first.id, 'skipped', 1],
      [second.id, 'succeeded', 1],
    ]);
    // Not run again: the first push's CRM calls are its failed tries, then the second push's own.
    expect(crm().requestsTo('GET', appointment)).toHaveLength(h.config.http.retry.attempts + 1);
    expect(crm().fileBytes(appointmentId, 'drawing')).toEqual(expect.arrayContaining([drawing.pdf, newDrawing.pdf]));
    expect(crm().fileBytes(appointmentId, 'drawing')).toHaveLength(2);
    expect(logs.lines).toContainEqual(expect.stringContaining(`#${first.id} push_drawings attempt 1 failed, not retried: superseded by #${second.id}`));
    expect(logs.lines.filter((line) => line.includes(`#${first.id} `) && line.includes('not put back'))).toEqual([]);
  }, 30_000);

  it('fails at once on a CRM 400, with the reason', async () => {
    const { project, drawing, appointmentId } = await scenario();
    crm().injectFault({ method: 'PUT', path: `/appointments/${appointmentId}/sale`, status: 400, body: { error: 'unknown unit "ft"' }, times: 1 });
    await send(project.id, drawing.id);
    const entries = await settled(h, project.id, ['push_line_items']);
    expect(entries).toHaveLength(1); // no Sold after a failed sale
    expect(entries[0]).toMatchObject({ status: 'failed', attempts: 1 });
    expect(entries[0].error).toContain('HTTP 400');
    expect(entries[0].error).toContain('unknown unit');
    expect(crm().requestsTo('PUT', `/appointments/${appointmentId}/sale`)).toHaveLength(1);
  });

  it('fails an appointment the CRM does not know, once, with a clear reason and no download', async () => {
    const { project, drawing, appointmentId } = await scenario(false);
    await deliverEvent(h, events.drawingCreated(h.service.drawingView(drawing.id)));
    await send(project.id, drawing.id);
    const entries = await settled(h, project.id, ['push_drawings', 'push_line_items']);
    for (const entry of entries) {
      expect(entry).toMatchObject({ status: 'failed', attempts: 1 });
      expect(entry.error).toBe(`appointment ${appointmentId} not found in the appointment CRM (HTTP 404); check the mapping`);
    }
    expect(h.service.requestsTo('GET', new RegExp(`^/files/drawings/${drawing.id}/`))).toHaveLength(0);
    expect(crm().requests.filter((r) => r.path.startsWith(`/appointments/${appointmentId}`))).toHaveLength(2);
  });

  it("pushes to an appointment the CRM did not know yet (404) once the admin's retry finds it there", async () => {
    const { project, drawing, appointmentId } = await scenario(false);
    await deliverEvent(h, events.drawingCreated(h.service.drawingView(drawing.id)));
    await send(project.id, drawing.id);
    const failed = await settled(h, project.id, ['push_drawings', 'push_line_items']);
    const byKind = (a: { kind: string }, b: { kind: string }) => a.kind.localeCompare(b.kind);
    expect(
      failed
        .filter((e) => e.crm === 'appointment')
        .sort(byKind)
        .map((e) => [e.kind, e.status]),
    ).toEqual([
      ['push_drawings', 'failed'],
      ['push_line_items', 'failed'],
    ]);
    // The appointment is there now (an export that arrived late, a mapping made before the CRM committed it).
    crm().addAppointment(appointmentId);
    for (const entry of failed.filter((e) => e.crm === 'appointment')) {
      const res = await h.admin(`/api/sync-logs/${entry.id}/retry`, { method: 'POST' });
      expect(res.status).toBe(202);
    }
    const entries = await waitFor(
      async () => {
        const all = (await entriesOf(h, project.id)).filter((e) => e.crm === 'appointment' && e.kind !== 'admin_write');
        const done = all.every((e) => !['queued', 'running'].includes(e.status));
        return done && (all.length === 3 || all.some((e) => e.status === 'failed' && e.attempts > 1)) ? all : null;
      },
      20_000,
      'the retried pushes and their Sold',
    );
    expect(entries.sort(byKind).map((e) => [e.kind, e.status])).toEqual([
      ['push_drawings', 'succeeded'],
      ['push_line_items', 'succeeded'],
      ['set_status', 'succeeded'],
    ]);
    // The CRM kept its 404 for the sale's key (the contract: the first answer to a key, for a day): the retry wrote
    // under a key of its own, which the CRM applied rather than answering with that 404 again.
    const saleKeys = crm()
      .requestsTo('PUT', `/appointments/${appointmentId}/sale`)
      .map((r) => r.headers['idempotency-key']);
    const sale = entries.find((e) => e.kind === 'push_line_items')!;
    expect(saleKeys).toEqual([`crm-sync:${sale.id}:sale`, `crm-sync:${sale.id}:retry-1:sale`]);
    expect(crm().get(appointmentId)).toMatchObject({ status: 'Sold', sale: { total: h.service.drawings.get(drawing.id)!.lineItems.total } });
    expect(
      crm()
        .get(appointmentId)!
        .files.filter((f) => f.category === 'drawing'),
    ).toHaveLength(1);
  });

  it('takes a 2xx whose body is not JSON as done for a write whose answer is not read', async () => {
    const { project, drawing, appointmentId } = await scenario();
    crm().injectFault({ method: 'PUT', path: `/appointments/${appointmentId}/sale`, status: 200, body: 'OK', contentType: 'text/plain', times: 1 });
    await send(project.id, drawing.id);
    const entries = await settled(h, project.id, ['push_line_items', 'set_status']);
    expect(entries.map((e) => [e.kind, e.status, e.attempts])).toEqual([
      ['push_line_items', 'succeeded', 1],
      ['set_status', 'succeeded', 1],
    ]);
  });

  it('fails an upload at once when the CRM answers a malformed file id', async () => {
    const { project, drawing, appointmentId } = await scenario();
    crm().injectFault({ method: 'POST', path: `/appointments/${appointmentId}/files`, status: 201, body: { id: { nested: 1 } }, times: 1 });
    await deliverEvent(h, events.drawingCreated(h.service.drawingView(drawing.id)));
    const [entry] = await settled(h, project.id, ['push_drawings']);
    expect(entry).toMatchObject({ status: 'failed', attempts: 1 });
    expect(entry.error).toContain('answer has a malformed file id');
  });
});
