import { failureOf, ZohoClients } from '../support/zoho-clients.js';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { ZohoClient } from '../../src/record-crm/zoho/zoho.client.js';
import { makePdf } from '../../sim/common/sim-server.js';

/** The Zoho adapter on its own against the Zoho simulator, over real HTTP. */
describe(ZohoClient.name, () => {
  const clients = new ZohoClients();
  const zoho = clients.zoho;
  let client: ZohoClient;

  beforeAll(async () => {
    await clients.start();
    client = clients.client({ PDF_MAX_BYTES: '200000' });
  });
  afterAll(() => clients.stop());

  it("a note on an unknown record: 400 with the error in data[0], read as Zoho's code and message", async () => {
    const err = await failureOf(client.addNote({ module: 'Deals', recordId: '4150868000000000001' }, 'Payment received: 1.00', 'x'));
    expect(err.status).toBe(400);
    expect(err.failure).toBe('rejected');
    expect(err.excerpt).toMatch(/^INVALID_DATA: the related id given seems to be invalid/);
    expect(zoho.api.requests.at(-1)!.path).toBe('/crm/v8/Notes');

    // The same error inside a 2xx answer (an older reading) is still a rejection with that code.
    zoho.notesFailureStatus = 200;
    try {
      const again = await failureOf(client.addNote({ module: 'Deals', recordId: '4150868000000000001' }, 'Payment received: 1.00', 'x'));
      expect(again.excerpt).toMatch(/^INVALID_DATA: the related id given seems to be invalid/);
    } finally {
      zoho.notesFailureStatus = 400;
    }
  });

  it('an upload refused with 400 and the error in data[0] is read the same way', async () => {
    const id = zoho.addRecord('Deals');
    const pdf = makePdf('refused');
    zoho.api.injectFault({
      method: 'POST',
      path: `/crm/v8/Deals/${id}/Attachments`,
      times: 1,
      status: 400,
      body: { data: [{ code: 'INVALID_DATA', details: { api_name: 'file' }, message: 'invalid data', status: 'error' }] },
    });
    const err = await failureOf(
      client.uploadAttachment({ module: 'Deals', recordId: id }, 'refused.pdf', () => Promise.resolve({ stream: Readable.from([pdf]), size: pdf.length })),
    );
    expect(err).toMatchObject({ status: 400, failure: 'rejected' });
    expect(err.excerpt).toBe('INVALID_DATA: invalid data {"api_name":"file"}');
  });

  it('lists more than 2,000 notes of a record by page numbers, as the SDK pages related records (no page_token)', async () => {
    const id = zoho.addRecord('Deals');
    for (let n = 1; n <= 2_050; n++) zoho.addNoteByHand('Deals', id, `Note ${n}`, `content ${n}`);
    const before = zoho.api.requests.length;
    const notes = await client.listNotes({ module: 'Deals', recordId: id });
    expect(notes).toHaveLength(2_050);
    expect(notes.at(-1)).toMatchObject({ title: 'Note 2050', content: 'content 2050' });
    const lists = zoho.api.requests.slice(before).filter((r) => r.path === `/crm/v8/Deals/${id}/Notes`);
    expect(lists).toHaveLength(11);
    expect(lists.map((r) => r.query.get('page'))).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11']);
    expect(lists.every((r) => r.query.get('page_token') === null)).toBe(true);
  });

  describe('uploads carry a Content-Length, as Zoho’s SDK sends them', () => {
    const spools = () => readdirSync(tmpdir()).filter((name) => name.startsWith('crm-sync-upload-'));
    const pdf = makePdf('x'.repeat(50_000));

    it('with the size the download announced: not chunked, the exact multipart length', async () => {
      const id = zoho.addRecord('Deals');
      const attachmentId = await client.uploadAttachment({ module: 'Deals', recordId: id }, 'known.pdf', () =>
        Promise.resolve({ stream: Readable.from([pdf.subarray(0, 1000), pdf.subarray(1000)]), size: pdf.length }),
      );
      const [attachment] = zoho.attachmentsOf('Deals', id);
      expect(attachment.id).toBe(attachmentId);
      expect(attachment.bytes.equals(pdf)).toBe(true);
      const upload = zoho.api.requests.at(-1)!;
      expect(attachment.framing).toEqual({ contentLength: upload.body.length, chunked: false });
    });

    it('without a size: spooled to a temp file to learn it, sent with its length, the file deleted', async () => {
      const id = zoho.addRecord('Deals');
      const before = spools();
      await client.uploadAttachment({ module: 'Deals', recordId: id }, 'unknown.pdf', () =>
        Promise.resolve({ stream: Readable.from([pdf.subarray(0, 1000), pdf.subarray(1000)]), size: null }),
      );
      const [attachment] = zoho.attachmentsOf('Deals', id);
      expect(attachment.bytes.equals(pdf)).toBe(true);
      expect(attachment.framing).toEqual({ contentLength: zoho.api.requests.at(-1)!.body.length, chunked: false });
      expect(spools()).toEqual(before);
    });

    it('a spool over PDF_MAX_BYTES stops, uploads nothing and leaves no file', async () => {
      const id = zoho.addRecord('Deals');
      const before = spools();
      const requests = zoho.api.requests.length;
      const big = Buffer.alloc(300_000, 0x20);
      const err = await client
        .uploadAttachment({ module: 'Deals', recordId: id }, 'big.pdf', () => Promise.resolve({ stream: Readable.from([big]), size: null }))
        .then(
          () => null,
          (e: unknown) => e as Error,
        );
      expect(err?.message).toMatch(/200000-byte cap/);
      expect(zoho.api.requests.length).toBe(requests);
      expect(zoho.attachmentsOf('Deals', id)).toEqual([]);
      expect(spools()).toEqual(before);
    });
  });

  it.each([401, 403] as const)('a scope mismatch answered %i needs reconnecting: no new token, readiness names the scopes', async (status) => {
    const id = zoho.addRecord('Deals');
    await client.listNotes({ module: 'Deals', recordId: id }); // a token in hand
    const tokens = zoho.tokensIssued;
    zoho.scopeMismatch = true;
    zoho.scopeMismatchStatus = status;
    try {
      const err = await failureOf(client.listNotes({ module: 'Deals', recordId: id }));
      expect(err).toMatchObject({ status, failure: 'unauthorized' });
      expect(err.excerpt).toMatch(/^reconnect to grant: ZohoCRM\.modules\.Deals\.ALL, ZohoCRM\.modules\.notes\.ALL \(Zoho refused .*OAUTH_SCOPE_MISMATCH: /);
      expect(zoho.tokensIssued).toBe(tokens);
      expect(await client.accessProblem()).toMatch(/^reconnect to grant: ZohoCRM\.modules\.Deals\.ALL, ZohoCRM\.modules\.notes\.ALL/);
    } finally {
      zoho.scopeMismatch = false;
      zoho.scopeMismatchStatus = 401;
    }
    await client.listNotes({ module: 'Deals', recordId: id });
    expect(await client.accessProblem()).toBeNull();
  });

  it.each(['no-content', 'empty-data'] as const)('reads an empty attachment and note list answered %s', async (style) => {
    const id = zoho.addRecord('Quotes');
    zoho.emptyListStyle = style;
    try {
      expect(await client.findAttachment({ module: 'Quotes', recordId: id }, () => true)).toBeNull();
      expect(await client.listNotes({ module: 'Quotes', recordId: id })).toEqual([]);
    } finally {
      zoho.emptyListStyle = 'no-content';
    }
  });

  it("an exact-value search reads every page of Zoho's loose `equals` (it matches parts), so the caller sees every hit", async () => {
    zoho.maxPerPage = 3;
    try {
      // Seven Deals whose job number contains JOB-7; the one that is exactly it comes last.
      for (let i = 0; i < 6; i++) zoho.addRecord('Deals', undefined, { Deal_Name: `Deal ${i}`, Job_Number__c: `JOB-7${i}` });
      const exact = zoho.addRecord('Deals', undefined, { Deal_Name: 'Exact', Job_Number__c: 'JOB-7' });
      const hits = await client.searchRecords('Deals', { field: 'Job_Number__c', equals: 'JOB-7' });
      expect(hits.map((r) => r.id)).toContain(exact);
      expect(hits).toHaveLength(7);
      const asked = zoho.api.requestsTo('GET', '/crm/v8/Deals/search').slice(-3);
      expect(asked.map((r) => [r.query.get('criteria'), r.query.get('page')])).toEqual([
        ['(Job_Number__c:equals:JOB-7)', '1'],
        ['(Job_Number__c:equals:JOB-7)', '2'],
        ['(Job_Number__c:equals:JOB-7)', '3'],
      ]);
      // A picker's word search stays one page.
      await client.searchRecords('Deals', { word: 'Deal' });
      expect(zoho.api.requestsTo('GET', '/crm/v8/Deals/search').at(-1)!.query.get('per_page')).toBe('20');
    } finally {
      zoho.maxPerPage = 200;
    }
  });
});
