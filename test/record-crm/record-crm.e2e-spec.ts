import type { MappingStatus } from '../../src/mappings/mapping.row.js';
import type { SyncLogEntry } from '../../src/sync-log/sync-log.row.js';
import { events, recordPrompt, WebhookSender } from '../../sim/service/index.js';
import { zohoError, type ZohoModule } from '../../sim/zoho/index.js';
import {
  dedupeWindowPassed,
  EVENTS_SECRET,
  RECORD_PROMPT_SECRET,
  runEntryAgain,
  startHarness,
  waitFor,
  writesSentEarlier,
  type Harness,
} from '../support/harness.js';
import { mapRecord } from '../support/zoho-records.js';
import { syncLogEntries, syncLogEntry } from '../support/tables.js';

const sender = new WebhookSender();
const FINISHED = ['succeeded', 'failed', 'skipped'];

describe('record CRM (Zoho) flows', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ redisDb: 12, recordCrm: true, env: { WEBHOOK_DEDUPE_WINDOW_SECONDS: '2', HTTP_UPLOAD_TIMEOUT_MS: '3000' } });
    h.service.addTemplate('Standard');
  });
  afterAll(() => h.close());
  afterEach(() => {
    h.zoho!.api.clearFaults();
    h.zoho!.accounts.latencyMs = 0;
  });

  const zoho = () => h.zoho!;

  /** A project with a drawing, mapped (associated) to a fresh Zoho record. */
  async function mappedProject(module: ZohoModule = 'Deals', status: MappingStatus = 'associated') {
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id);
    const recordId = zoho().addRecord(module);
    await mapRecord(h, project.id, recordId, module, status);
    return { project, drawing, module, recordId, target: `${module}/${recordId}` };
  }

  async function deliverPrompt(body: Record<string, unknown>): Promise<string> {
    const res = await sender.deliverOnce(`${h.url}/webhooks/record-crm/export-prompt`, body, { secret: RECORD_PROMPT_SECRET });
    expect(res.status).toBe(200);
    return (JSON.parse(res.body) as { status: string }).status;
  }

  async function deliverEvent(body: object): Promise<string> {
    const res = await sender.deliverOnce(`${h.url}/webhooks/events`, body, { secret: EVENTS_SECRET });
    expect(`${res.status} ${res.body}`).toMatch(/^200 /);
    return (JSON.parse(res.body) as { status: string }).status;
  }

  const entriesOf = (target: string) => syncLogEntries(h, { target });

  /** Waits until `count` entries of the target exist and all are finished. */
  async function settled(target: string, count = 1): Promise<SyncLogEntry[]> {
    return waitFor(
      async () => {
        const entries = await entriesOf(target);
        return entries.length >= count && entries.every((e) => FINISHED.includes(e.status)) ? entries : null;
      },
      15_000,
      `${count} finished entries for ${target}`,
    );
  }

  async function bytesAt(url: string): Promise<Buffer> {
    return Buffer.from(await (await fetch(url)).arrayBuffer());
  }

  const promptFor = (m: Awaited<ReturnType<typeof mappedProject>>, yes = true) =>
    recordPrompt({ drawing_id: m.drawing.id, record_crm_module: m.module, record_crm_record_id: m.recordId, yes_no: yes });

  it('prompt yes: exports the proposal and attaches it once, with the right bytes, name and headers', async () => {
    const m = await mappedProject();
    const exportsBefore = h.service.exports.length;
    expect(await deliverPrompt(promptFor(m))).toBe('accepted');

    const [entry] = await settled(m.target);
    expect(entry).toMatchObject({ kind: 'attach_pdf', crm: 'record', status: 'succeeded', projectId: m.project.id, trigger: 'webhook' });
    expect(h.service.exports.length).toBe(exportsBefore + 1);
    const exported = h.service.exports.at(-1)!;
    expect(exported.drawingId).toBe(m.drawing.id);

    const attachments = zoho().attachmentsOf('Deals', m.recordId);
    expect(attachments).toHaveLength(1);
    expect(attachments[0].bytes.equals(await bytesAt(exported.url))).toBe(true);
    expect(attachments[0].contentType).toBe('application/pdf');
    expect(attachments[0].fileName).toMatch(new RegExp(`^${m.drawing.name} \\[[0-9a-z]+\\]\\.pdf$`));
    expect(entry.detail).toContain(attachments[0].id);

    const uploads = zoho().api.requestsTo('POST', `/crm/v8/Deals/${m.recordId}/Attachments`);
    expect(uploads).toHaveLength(1);
    expect(uploads[0].headers.authorization).toMatch(/^Zoho-oauthtoken 1000\.\w+\.\w+$/);
    expect(uploads[0].headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    // As Zoho's SDK sends it: a Content-Length (the PDF's size is known from its download), not chunked.
    expect(attachments[0].framing).toEqual({ contentLength: uploads[0].body.length, chunked: false });
    const lists = zoho().api.requestsTo('GET', `/crm/v8/Deals/${m.recordId}/Attachments`);
    expect(lists[0].query.get('fields')).toContain('File_Name');
  });

  it('the same delivery twice and a forced retry leave one attachment; a later equal export adds a second', async () => {
    const m = await mappedProject('Quotes');
    const body = promptFor(m);
    expect(await deliverPrompt(body)).toBe('accepted');
    expect(await deliverPrompt(body)).toBe('duplicate');
    const [entry] = await settled(m.target);
    expect(entry.status).toBe('succeeded');
    expect(zoho().attachmentsOf('Quotes', m.recordId)).toHaveLength(1);

    // A crash between upload and bookkeeping: the entry runs again and finds the attachment by its name (the crash a
    // while ago: the fence's wait for that upload to land is another test's).
    const exportsBefore = h.service.exports.length;
    await writesSentEarlier(h, entry.id);
    await runEntryAgain(h, entry.id);
    const again = await waitFor(async () => {
      const e = await syncLogEntry(h, { id: entry.id });
      return e && e.attempts === 2 && e.status === 'succeeded' ? e : null;
    });
    expect(again.detail).toMatch(/^already attached as /);
    expect(zoho().attachmentsOf('Quotes', m.recordId)).toHaveLength(1);
    expect(h.service.exports.length).toBe(exportsBefore);

    // The user exports the same drawing again after the dedupe window: a new delivery, a new attachment.
    await dedupeWindowPassed(h);
    expect(await deliverPrompt(body)).toBe('accepted');
    await settled(m.target, 2);
    const names = zoho()
      .attachmentsOf('Quotes', m.recordId)
      .map((a) => a.fileName);
    expect(names).toHaveLength(2);
    expect(new Set(names).size).toBe(2);
  });

  it('finds an earlier upload on a later page of attachments', async () => {
    const m = await mappedProject('Leads');
    // Files people attached by hand, one named like a short id without the brackets.
    for (const name of ['site photo.pdf', 'Quote-1.pdf', 'Quote-2.pdf']) zoho().addAttachment('Leads', m.recordId, name, Buffer.from('%PDF-1.4 by hand'));
    zoho().maxPerPage = 2;
    try {
      expect(await deliverPrompt(promptFor(m))).toBe('accepted');
      const [entry] = await settled(m.target);
      expect(entry.status).toBe('succeeded');
      expect(zoho().attachmentsOf('Leads', m.recordId)).toHaveLength(4);

      await writesSentEarlier(h, entry.id);
      await runEntryAgain(h, entry.id);
      const again = await waitFor(async () => {
        const e = await syncLogEntry(h, { id: entry.id });
        return e && e.attempts === 2 && e.status === 'succeeded' ? e : null;
      });
      expect(again.detail).toMatch(/^already attached as /);
      expect(zoho().attachmentsOf('Leads', m.recordId)).toHaveLength(4);
      const lists = zoho().api.requestsTo('GET', `/crm/v8/Leads/${m.recordId}/Attachments`);
      expect(lists.some((r) => r.query.get('page_token') || r.query.get('page') === '2')).toBe(true);
    } finally {
      zoho().maxPerPage = 200;
    }
  });

  it('prompt no: a skipped entry, nothing exported or attached', async () => {
    const m = await mappedProject();
    const exportsBefore = h.service.exports.length;
    expect(await deliverPrompt(promptFor(m, false))).toBe('accepted');
    const [entry] = await settled(m.target);
    expect(entry).toMatchObject({ kind: 'attach_pdf', status: 'skipped', detail: 'the user answered no to the push prompt' });
    expect(h.service.exports.length).toBe(exportsBefore);
    expect(zoho().attachmentsOf('Deals', m.recordId)).toHaveLength(0);
  });

  it("an unknown record fails at once with Zoho's message, before anything is exported", async () => {
    const recordId = '4150868000000000999';
    const project = h.service.addProject();
    const drawing = h.service.addDrawing(project.id);
    const exportsBefore = h.service.exports.length;
    await deliverPrompt(
      recordPrompt({ drawing_id: drawing.id, record_crm_module: 'Deals', record_crm_record_id: recordId, yes_no: true, project_id: project.id }),
    );
    const [entry] = await settled(`Deals/${recordId}`);
    expect(entry.status).toBe('failed');
    expect(entry.attempts).toBe(1);
    expect(entry.error).toContain('INVALID_DATA: the related id given seems to be invalid');
    expect(h.service.exports.length).toBe(exportsBefore);
  });

  it("a prompt naming another record than the project's mapping fails naming both", async () => {
    const m = await mappedProject();
    const other = zoho().addRecord('Deals');
    await deliverPrompt(
      recordPrompt({ drawing_id: m.drawing.id, record_crm_module: 'Deals', record_crm_record_id: other, yes_no: true, project_id: m.project.id }),
    );
    const [entry] = await settled(`Deals/${other}`);
    expect(entry.status).toBe('failed');
    expect(entry.error).toContain(`Deals/${other}`);
    expect(entry.error).toContain(m.target);
    expect(zoho().attachmentsOf('Deals', other)).toHaveLength(0);
  });

  it('recovers from 429 and 503 answers', async () => {
    const m = await mappedProject();
    const busy = zohoError('TOO_MANY_REQUESTS', 'too many requests');
    zoho().api.injectFault({ method: 'GET', path: `/crm/v8/Deals/${m.recordId}/Attachments`, times: 1, status: 429, body: busy });
    // Enough 503s on the upload to outlast the inline retries, so the job itself is retried too.
    zoho().api.injectFault({ method: 'POST', path: `/crm/v8/Deals/${m.recordId}/Attachments`, times: 4, status: 503, body: { error: 'down' } });
    await deliverPrompt(promptFor(m));
    const [entry] = await settled(m.target);
    expect(entry.status).toBe('succeeded');
    expect(entry.attempts).toBe(2);
    expect(zoho().attachmentsOf('Deals', m.recordId)).toHaveLength(1);
    expect(zoho().attachmentsOf('Deals', m.recordId)[0].bytes.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('an upload Zoho applies after crm-sync gave up on it: the next try waits as long again, finds it, uploads nothing', async () => {
    const m = await mappedProject();
    const uploadPath = `/crm/v8/Deals/${m.recordId}/Attachments`;
    const timeoutMs = h.config.http.uploadTimeoutMs;
    // Zoho stores the file 1.5 s after the client stopped waiting for the answer.
    zoho().api.injectFault({ method: 'POST', path: uploadPath, times: 1, delayMs: timeoutMs + 1_500 });
    await deliverPrompt(promptFor(m));
    const [entry] = await waitFor(async () => {
      const entries = await settled(m.target);
      return entries[0].status === 'succeeded' ? entries : null;
    }, 20_000);

    expect(zoho().attachmentsOf('Deals', m.recordId)).toHaveLength(1);
    const uploads = zoho().api.requestsTo('POST', uploadPath);
    expect(uploads).toHaveLength(1);
    const looks = zoho().api.requestsTo('GET', uploadPath);
    expect(looks).toHaveLength(2); // before the upload, and after it went unanswered
    expect(looks[1].at - uploads[0].at).toBeGreaterThanOrEqual(2 * timeoutMs - 50);
    // Found by the action's own retry, or by its job's next run when the wait outlasts what is waited inline.
    expect(entry.detail).toMatch(new RegExp(`^(attached|already attached as) .+ \\(attachment ${zoho().attachmentsOf('Deals', m.recordId)[0].id}\\)$`));
  }, 30_000);

  it('an upload an earlier run sent and Zoho applied after that run was cut off: the next run waits for it, uploads nothing', async () => {
    const m = await mappedProject();
    const uploadPath = `/crm/v8/Deals/${m.recordId}/Attachments`;
    // The first runs fail: the entry ends failed, with no attachment.
    zoho().api.injectFault({ method: 'POST', path: uploadPath, times: 100, status: 400 });
    await deliverPrompt(promptFor(m));
    const [failed] = await settled(m.target);
    expect(failed.status).toBe('failed');
    zoho().api.clearFaults();

    // As if a run had just sent its upload and its replica had stopped: the entry says when, and the next run starts at
    // once; Zoho applies that upload 1.5 s later.
    const sentAt = Date.now();
    await h.database.query(`UPDATE sync_log SET payload = payload || jsonb_build_object('uploadSentAt', $2::bigint) WHERE id = $1`, [failed.id, sentAt]);
    const uploadsBefore = zoho().api.requestsTo('POST', uploadPath).length;
    await runEntryAgain(h, failed.id);
    const shortId = String((failed.payload as { deliveryShortId?: string }).deliveryShortId);
    setTimeout(() => zoho().addAttachment('Deals', m.recordId, `Earlier run [${shortId}].pdf`, Buffer.from('%PDF-1.4 earlier')), 1_500);

    const again = await waitFor(async () => {
      const e = await syncLogEntry(h, { id: failed.id });
      return e && e.status === 'succeeded' ? e : null;
    }, 20_000);
    expect(again.detail).toMatch(/^already attached as Earlier run \[/);
    expect(zoho().attachmentsOf('Deals', m.recordId)).toHaveLength(1);
    expect(zoho().api.requestsTo('POST', uploadPath)).toHaveLength(uploadsBefore);
    // It looked once the earlier upload could have landed: twice the upload time-out after it was sent.
    const looks = zoho()
      .api.requestsTo('GET', uploadPath)
      .filter((r) => r.at > sentAt);
    expect(looks[0].at - sentAt).toBeGreaterThanOrEqual(2 * h.config.http.uploadTimeoutMs - 50);
  }, 30_000);

  it('a note Zoho applies after crm-sync gave up on it is found by the next try, not added twice', async () => {
    const m = await mappedProject('Contacts');
    const proposal = h.service.addProposal({ project_id: m.project.id, status: 'APPROVED' });
    const payment = h.service.addPayment(proposal.proposal_id, { paid_amount: 75, pay_channel: 'mark_as_paid', paid_date: '2025-11-21' });
    const timeoutMs = h.config.http.timeoutMs;
    zoho().api.injectFault({ method: 'POST', path: '/crm/v8/Notes', times: 1, delayMs: timeoutMs + 1_500 });
    expect(await deliverEvent(events.paymentReceived(proposal.proposal_id, m.drawing.id, payment))).toBe('accepted');
    const [entry] = await waitFor(async () => {
      const entries = await settled(m.target);
      return entries[0].status === 'succeeded' ? entries : null;
    }, 20_000);

    const notes = zoho().notesOf('Contacts', m.recordId);
    expect(notes).toHaveLength(1);
    expect(
      zoho()
        .api.requestsTo('POST', '/crm/v8/Notes')
        .filter((r) => r.body.toString().includes(m.recordId)),
    ).toHaveLength(1);
    expect(entry.detail).toMatch(new RegExp(`^note (added|already on the record) \\(note ${notes[0].id}\\)$`));
  }, 30_000);

  it('a note whose connection was lost mid-request is looked for, then added, no sooner than it went unanswered', async () => {
    const m = await mappedProject('Contacts');
    const proposal = h.service.addProposal({ project_id: m.project.id, status: 'APPROVED' });
    const payment = h.service.addPayment(proposal.proposal_id, { paid_amount: 12, pay_channel: 'mark_as_paid', paid_date: '2025-11-22' });
    zoho().api.injectFault({ method: 'POST', path: '/crm/v8/Notes', times: 1, delayMs: 1_200, dropConnection: true });
    expect(await deliverEvent(events.paymentReceived(proposal.proposal_id, m.drawing.id, payment))).toBe('accepted');
    await waitFor(async () => (await settled(m.target))[0].status === 'succeeded', 20_000);

    expect(zoho().notesOf('Contacts', m.recordId)).toHaveLength(1);
    const posts = zoho()
      .api.requestsTo('POST', '/crm/v8/Notes')
      .filter((r) => r.body.toString().includes(m.recordId));
    expect(posts).toHaveLength(2);
    // The reset came 1.2 s after the request arrived; the next try waited at least as long again.
    expect(posts[1].at - posts[0].at).toBeGreaterThanOrEqual(2 * 1_200 - 50);
  }, 30_000);

  it('refreshes an expired token mid-run and tries the call once more, re-opening the download', async () => {
    const m = await mappedProject();
    const issued = zoho().tokensIssued;
    // The token dies between the listing and the upload.
    zoho().api.injectFault({
      method: 'POST',
      path: `/crm/v8/Deals/${m.recordId}/Attachments`,
      times: 1,
      status: 401,
      body: zohoError('INVALID_TOKEN', 'invalid oauth token'),
    });
    await deliverPrompt(promptFor(m));
    const [entry] = await settled(m.target);
    expect(entry).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(zoho().tokensIssued).toBe(issued + 1);
    const [attachment] = zoho().attachmentsOf('Deals', m.recordId);
    expect(attachment.bytes.equals(await bytesAt(h.service.exports.at(-1)!.url))).toBe(true);
    const auths = zoho()
      .api.requestsTo('POST', `/crm/v8/Deals/${m.recordId}/Attachments`)
      .map((r) => r.headers.authorization);
    expect(auths).toHaveLength(2);
    expect(auths[0]).not.toBe(auths[1]);
  });

  it('concurrent jobs with an expired token share one refresh', async () => {
    const projects = await Promise.all([1, 2, 3, 4].map(() => mappedProject()));
    zoho().expireAllTokens();
    zoho().accounts.latencyMs = 300;
    const issued = zoho().tokensIssued;
    const requestsBefore = zoho().tokenRequests.length;
    await Promise.all(projects.map((m) => deliverPrompt(promptFor(m))));
    for (const m of projects) {
      const [entry] = await settled(m.target);
      expect(entry.status).toBe('succeeded');
      expect(zoho().attachmentsOf('Deals', m.recordId)).toHaveLength(1);
    }
    expect(zoho().tokensIssued).toBe(issued + 1);
    expect(zoho().tokenRequests.length).toBe(requestsBefore + 1);
  });

  it('APPROVED: the signed PDF attached once, whatever replays it', async () => {
    const m = await mappedProject('Deals');
    const proposal = h.service.addProposal({ project_id: m.project.id, status: 'APPROVED' });
    expect(await deliverEvent(events.proposalStatusChanged(proposal))).toBe('accepted');
    const [entry] = await settled(m.target);
    expect(entry).toMatchObject({ kind: 'attach_pdf', status: 'succeeded' });
    const attachments = zoho().attachmentsOf('Deals', m.recordId);
    expect(attachments.map((a) => a.fileName)).toEqual([`proposal-${proposal.proposal_id}-signed.pdf`]);
    expect(attachments[0].bytes.equals(await bytesAt(proposal.pdf_url!))).toBe(true);

    // The deprecated event for the same approval, and a status change that is not an approval: nothing new.
    expect(await deliverEvent(events.proposalApproved(proposal, { drawing_version_id: m.drawing.versionId }))).toBe('accepted');
    expect(await deliverEvent(events.proposalStatusChanged({ ...proposal, status: 'PENDING' }))).toBe('accepted');
    await new Promise((r) => setTimeout(r, 500));
    expect((await entriesOf(m.target)).filter((e) => e.kind === 'attach_pdf')).toHaveLength(1);
    expect(zoho().attachmentsOf('Deals', m.recordId)).toHaveLength(1);
  });

  it('APPROVED with an expired signed PDF address: the proposal is read again and its fresh PDF attached', async () => {
    const m = await mappedProject('Quotes');
    const proposal = h.service.addProposal({ project_id: m.project.id, status: 'APPROVED' });
    const expired = { ...proposal, pdf_url: `${h.service.url}/files/blobs/expired-${proposal.proposal_id}.pdf` };
    expect(await deliverEvent(events.proposalStatusChanged(expired))).toBe('accepted');
    const [entry] = await settled(m.target);
    expect(entry).toMatchObject({ kind: 'attach_pdf', status: 'succeeded' });
    const attachments = zoho().attachmentsOf('Quotes', m.recordId);
    expect(attachments).toHaveLength(1);
    expect(attachments[0].bytes.equals(await bytesAt(proposal.pdf_url!))).toBe(true);
  });

  it('payment: a note with amount, channel, method and date, added once', async () => {
    const m = await mappedProject('Contacts');
    const proposal = h.service.addProposal({ project_id: m.project.id, status: 'APPROVED' });
    const payment = h.service.addPayment(proposal.proposal_id, {
      paid_amount: 120.5,
      pay_channel: 'mark_as_paid',
      paid_date: '2025-11-20',
      payment_method: 'Check',
    });
    const body = events.paymentReceived(proposal.proposal_id, m.drawing.id, payment);
    expect(await deliverEvent(body)).toBe('accepted');
    const [entry] = await settled(m.target);
    expect(entry).toMatchObject({ kind: 'add_note', status: 'succeeded', projectId: m.project.id });
    const notes = zoho().notesOf('Contacts', m.recordId);
    expect(notes).toHaveLength(1);
    expect(notes[0].title).toBe('Payment received: 120.50');
    expect(notes[0].content).toContain('120.50');
    expect(notes[0].content).toContain('Channel: mark_as_paid');
    expect(notes[0].content).toContain('Method: Check');
    expect(notes[0].content).toContain('Date: 2025-11-20');
    expect(entry.dedupeKey).toBe(`record:payment:${proposal.proposal_id}:mark_as_paid:2025-11-20:120.50:Check`);

    // The entry runs again (a crash after Zoho stored the note, a while ago): the note is found, not added twice.
    await writesSentEarlier(h, entry.id);
    await runEntryAgain(h, entry.id);
    const again = await waitFor(async () => {
      const e = await syncLogEntry(h, { id: entry.id });
      return e && e.attempts === 2 && e.status === 'succeeded' ? e : null;
    });
    expect(again.detail).toMatch(/^note already on the record/);
    expect(zoho().notesOf('Contacts', m.recordId)).toHaveLength(1);
  });

  it('a failed mapping gets a skipped entry; an unmapped project nothing', async () => {
    const m = await mappedProject('Deals', 'failed');
    const proposal = h.service.addProposal({ project_id: m.project.id, status: 'APPROVED' });
    await deliverEvent(events.proposalStatusChanged(proposal));
    const [entry] = await settled(m.target);
    expect(entry.status).toBe('skipped');
    expect(entry.detail).toContain('record mapping failed');
    expect(zoho().attachmentsOf('Deals', m.recordId)).toHaveLength(0);
  });
});
