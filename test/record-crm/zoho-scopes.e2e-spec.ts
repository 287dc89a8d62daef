import { ZohoClients } from '../support/zoho-clients.js';
import { Readable } from 'node:stream';
import { OutboundError } from '../../src/http/outbound-error.js';
import { NO_CRM_ORGANIZATION } from '../../src/record-crm/zoho/zoho-account.js';
import { ZohoClient } from '../../src/record-crm/zoho/zoho.client.js';
import { ZOHO_SCOPES } from '../../src/record-crm/zoho/zoho-scopes.js';
import { makePdf } from '../../sim/common/sim-server.js';

/** The scopes crm-sync asked for before issue 25 (main's zoho-scopes.ts). */
const MAIN_SCOPES = [
  'ZohoCRM.modules.attachments.READ',
  'ZohoCRM.modules.attachments.CREATE',
  'ZohoCRM.modules.notes.READ',
  'ZohoCRM.modules.notes.CREATE',
  'ZohoCRM.modules.Deals.READ',
  'ZohoCRM.modules.Quotes.READ',
  'ZohoCRM.modules.Leads.READ',
  'ZohoCRM.modules.Contacts.READ',
];

/** Scopes per call under both readings of Zoho's material, and who a connection reaches, against the simulator. */
describe('Zoho scopes and the connected account', () => {
  const clients = new ZohoClients();
  const zoho = clients.zoho;
  const acme = zoho.account;

  beforeAll(() => clients.start());
  afterEach(() => {
    zoho.scopeReading = 'strict';
    zoho.scopeInTokenAnswers = true;
    zoho.account = acme;
  });
  afterAll(() => clients.stop());

  /** A client whose refresh token Zoho issued for these scopes (a consent of its own, so nothing is cached). */
  const clientWith = (scopes: string[]): ZohoClient => clients.client({ RECORD_CRM_REFRESH_TOKEN: zoho.issueRefreshToken(scopes) });

  const pdf = makePdf('scopes');
  const upload = (client: ZohoClient, recordId: string) =>
    client.uploadAttachment({ module: 'Deals', recordId }, 'scopes.pdf', () => Promise.resolve({ stream: Readable.from([pdf]), size: pdf.length }));

  it.each(['strict', 'yaml'] as const)('asks for scopes every call works with, under the %s reading', async (reading) => {
    zoho.scopeReading = reading;
    const client = clientWith(ZOHO_SCOPES.split(','));
    const deal = zoho.addRecord('Deals', undefined, { Deal_Name: 'Roof' });
    const record = { module: 'Deals' as const, recordId: deal };
    expect(await client.accessProblem()).toBeNull();
    await upload(client, deal);
    expect(await client.findAttachment(record, (name) => name === 'scopes.pdf')).toMatchObject({ fileName: 'scopes.pdf' });
    await client.addNote(record, 'Payment received: 1.00', 'x');
    expect(await client.listNotes(record)).toHaveLength(1);
    expect((await client.listChangedRecords('Deals', { fields: ['Deal_Name'], modifiedSince: null, pageToken: null })).records.length).toBeGreaterThan(0);
    expect(await client.getRecordsByIds('Contacts', [zoho.addRecord('Contacts')], ['Full_Name'])).toHaveLength(1);
  });

  it("main's scopes: the stricter reading refuses the upload, and the client names the scopes to reconnect for", async () => {
    zoho.scopeInTokenAnswers = false;
    const client = clientWith(MAIN_SCOPES);
    const deal = zoho.addRecord('Deals');
    const err = await upload(client, deal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as OutboundError).excerpt).toContain('OAUTH_SCOPE_MISMATCH');
    expect(await client.accessProblem()).toMatch(
      /^reconnect to grant: ZohoCRM\.modules\.Deals\.ALL, ZohoCRM\.modules\.attachments\.ALL \(Zoho refused POST \/\{module\}\/\{id\}\/Attachments/,
    );
  });

  it("main's scopes pass under the YAML's reading, where an upload needs attachments.CREATE alone", async () => {
    zoho.scopeReading = 'yaml';
    zoho.scopeInTokenAnswers = false;
    const client = clientWith([...MAIN_SCOPES, 'ZohoCRM.org.READ', 'ZohoCRM.users.READ']);
    await upload(client, zoho.addRecord('Deals'));
    expect(await client.accessProblem()).toBeNull();
  });

  it('a token whose answer names fewer scopes than crm-sync needs: degraded before any call fails, naming them', async () => {
    const client = clientWith(MAIN_SCOPES);
    const problem = await client.accessProblem();
    expect(problem).toMatch(/^reconnect to grant: /);
    for (const scope of ['ZohoCRM.modules.Deals.ALL', 'ZohoCRM.modules.attachments.ALL', 'ZohoCRM.org.READ', 'ZohoCRM.users.READ']) {
      expect(problem).toContain(scope);
    }
    // A scope wider than asked holds the narrower one (Zoho's naming).
    expect(
      await clientWith([
        'ZohoCRM.modules.ALL',
        'ZohoCRM.org.ALL',
        'ZohoCRM.users.ALL',
        'ZohoCRM.settings.ALL',
        'ZohoCRM.coql.READ',
        'ZohoCRM.notifications.ALL',
      ]).accessProblem(),
    ).toBeNull();
  });

  it('says who is connected: the organization and the user who gave consent', async () => {
    const client = clientWith(ZOHO_SCOPES.split(','));
    expect(await client.connectedAccount()).toEqual({ orgId: '12345', orgName: 'Acme Roofing', userEmail: 'admin@acme.example', userName: 'Acme Admin' });
    expect(zoho.api.requests.at(-2)).toMatchObject({ path: '/crm/v8/org' });
    expect(zoho.api.requests.at(-1)!.query.get('type')).toBe('CurrentUser');
  });

  it('a consent by a Zoho user of no CRM organization is a problem, named as such', async () => {
    zoho.account = { userId: '4150868000000999001', email: 'someone@gmail.example', fullName: 'Someone', org: null };
    const client = clientWith(ZOHO_SCOPES.split(','));
    expect(await client.connectedAccount()).toBeNull();
    expect(await client.accessProblem()).toBe(NO_CRM_ORGANIZATION);
  });
});
