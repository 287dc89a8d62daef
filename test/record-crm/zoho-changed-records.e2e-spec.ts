import { ZohoClients } from '../support/zoho-clients.js';
import { OutboundError } from '../../src/http/outbound-error.js';
import type { ZohoRecord } from '../../src/record-crm/record-crm.js';
import { ZohoClient } from '../../src/record-crm/zoho/zoho.client.js';
import { bareNumber } from '../../sim/common/sim-server.js';

/** Get Records (new and changed records) and Contacts by ids, against the Zoho simulator over real HTTP. */
describe('Zoho: new and changed records', () => {
  const clients = new ZohoClients();
  const zoho = clients.zoho;
  let client: ZohoClient;
  const t0 = Date.parse('2026-03-01T08:00:00Z');
  const at = (seconds: number) => new Date(t0 + seconds * 1000);

  beforeAll(async () => {
    await clients.start();
    client = clients.client();
  });
  afterAll(() => clients.stop());

  const listRequests = (module: string, from: number) => zoho.api.requests.slice(from).filter((r) => r.method === 'GET' && r.path === `/crm/v8/${module}`);

  it('reads more than 2,000 changed records oldest change first, following page_token past the page numbers', async () => {
    // Added newest first, so the order read can only come from sort_by=Modified_Time&sort_order=asc.
    for (let n = 2_150; n >= 1; n--) zoho.addRecord('Deals', undefined, { Deal_Name: `Deal ${n}`, Stage: 'Qualification' }, at(n));
    const before = zoho.api.requests.length;
    const read: ZohoRecord[] = [];
    let pageToken: string | null = null;
    let pages = 0;
    do {
      const page = await client.listChangedRecords('Deals', { fields: ['Deal_Name', 'Stage', 'Modified_Time'], modifiedSince: null, pageToken });
      expect(page.notModified).toBe(false);
      read.push(...page.records);
      pageToken = page.nextPageToken;
      expect(page.moreRecords).toBe(pageToken !== null);
      pages += 1;
    } while (pageToken && pages < 20);

    expect(read).toHaveLength(2_150);
    expect(read.map((r) => r.Deal_Name)).toEqual(Array.from({ length: 2_150 }, (_, i) => `Deal ${i + 1}`));
    expect(read[0].Modified_Time).toBe('2026-03-01T08:00:01+00:00');
    const requests = listRequests('Deals', before);
    expect(requests).toHaveLength(11);
    for (const r of requests) {
      expect(r.query.get('sort_by')).toBe('Modified_Time');
      expect(r.query.get('sort_order')).toBe('asc');
      expect(r.query.get('per_page')).toBe('200');
      expect(r.query.get('fields')).toBe('Deal_Name,Stage,Modified_Time');
    }
    expect(requests[0].query.get('page')).toBe('1');
    for (const later of requests.slice(1)) {
      expect(later.query.get('page')).toBeNull();
      expect(later.query.get('page_token')).toBeTruthy();
    }
  });

  it('sends If-Modified-Since as Zoho writes times; nothing changed since is a 304, read as not modified', async () => {
    const old = zoho.addRecord('Leads', undefined, { Last_Name: 'Old' }, at(10));
    zoho.addRecord('Leads', undefined, { Last_Name: 'Older' }, at(5));
    const before = zoho.api.requests.length;

    const unchanged = await client.listChangedRecords('Leads', { fields: ['Last_Name'], modifiedSince: at(10), pageToken: null });
    expect(unchanged).toEqual({ records: [], nextPageToken: null, moreRecords: false, notModified: true });
    const [request] = listRequests('Leads', before);
    expect(request.headers['if-modified-since']).toBe('2026-03-01T08:00:10+00:00');

    zoho.modifyRecord('Leads', old, { Last_Name: 'Renamed' }, at(20));
    const changed = await client.listChangedRecords('Leads', { fields: ['Last_Name'], modifiedSince: at(10), pageToken: null });
    expect(changed.notModified).toBe(false);
    expect(changed.records).toEqual([{ id: old, Last_Name: 'Renamed' }]);
    expect(changed.moreRecords).toBe(false);
  });

  it('asks only the fields named and keeps lookups and 19-digit ids exact, even as bare JSON numbers', async () => {
    const contactId = '4150868000098765431';
    const quote = zoho.addRecord('Quotes', '4150868000012345679', {
      Subject: 'Roof',
      Grand_Total: 1234.5,
      Contact_Name: { id: bareNumber(contactId), name: 'Ada Lovelace' },
      Description: 'not asked',
    });
    const page = await client.listChangedRecords('Quotes', { fields: ['Subject', 'Contact_Name'], modifiedSince: null, pageToken: null, perPage: 50 });
    expect(page.records).toEqual([{ id: quote, Subject: 'Roof', Contact_Name: { id: contactId, name: 'Ada Lovelace' } }]);
    expect(zoho.api.requests.at(-1)!.query.get('per_page')).toBe('50');
  });

  it('reads Contacts by ids, at most 100 ids per call; ids Zoho does not know are left out', async () => {
    const ids = Array.from({ length: 230 }, (_, i) => zoho.addRecord('Contacts', `41508680001${String(i).padStart(8, '0')}`, { Full_Name: `C${i}` }));
    const unknown = '4150868000999999999';
    const before = zoho.api.requests.length;
    const contacts = await client.getRecordsByIds('Contacts', [...ids, unknown, ids[0]], ['Full_Name', 'Email']);
    expect(contacts.map((c) => c.id).sort()).toEqual([...ids].sort());
    expect(contacts.find((c) => c.id === ids[7])).toEqual({ id: ids[7], Full_Name: 'C7' });
    const calls = listRequests('Contacts', before);
    expect(calls.map((r) => r.query.get('ids')!.split(',').length)).toEqual([100, 100, 31]);
    expect(calls.every((r) => r.query.get('fields') === 'Full_Name,Email')).toBe(true);

    const none = await client.getRecordsByIds('Contacts', [unknown], ['Full_Name']);
    expect(none).toEqual([]);
    expect(await client.getRecordsByIds('Contacts', [], ['Full_Name'])).toEqual([]);
  });

  it('a page token used with other parameters is refused as Zoho does, naming the code', async () => {
    const first = await client.listChangedRecords('Deals', { fields: ['Deal_Name'], modifiedSince: null, pageToken: null });
    expect(first.nextPageToken).toBeTruthy();
    const err = await client.listChangedRecords('Deals', { fields: ['Stage'], modifiedSince: null, pageToken: first.nextPageToken }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as OutboundError).excerpt).toMatch(/^TOKEN_BOUND_DATA_MISMATCH/);
  });
});
