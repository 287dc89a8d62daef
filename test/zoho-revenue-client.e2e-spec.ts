import { failureOf, ZohoClients } from './support/zoho-clients.js';
import { jsonCents } from '../src/record-crm/revenue/money.js';
import { criteriaValue, ZohoRevenueClient } from '../src/record-crm/zoho/zoho-revenue.client.js';

/**
 * The revenue calls on their own against the Zoho simulator, which answers as Zoho's v8 OpenAPI files
 * (`v8.0/record/record.yaml`, `v8.0/fields/fields.yaml`) and its Node SDK describe: errors inside `data[]`,
 * MANDATORY_NOT_FOUND, DUPLICATE_DATA, 204 for an empty search, subform rows appended unless deleted by id.
 */
describe(ZohoRevenueClient.name, () => {
  const clients = new ZohoClients();
  const zoho = clients.zoho;
  let client: ZohoRevenueClient;

  beforeAll(async () => {
    await clients.start();
    client = new ZohoRevenueClient(clients.client());
  });
  afterAll(() => clients.stop());

  it('reads a record; an unknown one is null whether Zoho answers 204 or 400 INVALID_DATA', async () => {
    const id = zoho.addRecord('Deals', undefined, { Stage: 'Qualification' });
    expect(await client.getRecord('Deals', id)).toMatchObject({ id, Stage: 'Qualification' });
    expect(await client.getRecord('Deals', '4150868000000000009')).toBeNull();
    zoho.missingRecordStyle = 'invalid-data';
    try {
      expect(await client.getRecord('Deals', '4150868000000000009')).toBeNull();
    } finally {
      zoho.missingRecordStyle = 'no-content';
    }
  });

  it('updates a Deal with PUT /Deals/{id}, the amount written digit for digit; refusals read from the top or from data[0]', async () => {
    const id = zoho.addRecord('Deals', undefined, { Stage: 'Qualification' });
    await client.updateRecord('Deals', id, { Amount: jsonCents(1234567890123n), Stage: 'Closed Won', Closing_Date: '2026-11-25' });
    expect(zoho.revenue.fieldsOf('Deals', id)).toMatchObject({ Amount: 12345678901.23, Stage: 'Closed Won', Closing_Date: '2026-11-25' });
    const put = zoho.api.requestsTo('PUT', `/crm/v8/Deals/${id}`).at(-1)!;
    expect(put.body.toString()).toBe(`{"data":[{"id":"${id}","Amount":12345678901.23,"Stage":"Closed Won","Closing_Date":"2026-11-25"}]}`);

    const unknown = await failureOf(client.updateRecord('Deals', '4150868000000000009', { Stage: 'Closed Won' }));
    expect(unknown).toMatchObject({ status: 400, failure: 'rejected' });
    expect(unknown.excerpt).toBe('INVALID_DATA: the related id given seems to be invalid {"resource_path_index":1}');
    const badStage = await failureOf(client.updateRecord('Deals', id, { Stage: 'Won-ish' }));
    expect(badStage.excerpt).toMatch(/^INVALID_DATA: invalid data .*"api_name":"Stage".*"supported_values":\["Qualification"/);
  });

  it("reads the Deals' Stage pick list in its order", async () => {
    const stages = await client.dealStages();
    expect(stages.slice(6, 9)).toEqual([
      { value: 'Negotiation/Review', sequence: 7 },
      { value: 'Closed Won', sequence: 8 },
      { value: 'Closed Lost', sequence: 9 },
    ]);
    expect(zoho.api.requestsTo('GET', '/crm/v8/settings/fields').at(-1)!.query.get('module')).toBe('Deals');
  });

  it('finds a product by its exact Product_Code, escaping the criteria; none is 204, read as null', async () => {
    const odd = 'FENCE-(6,FT)\\A';
    const id = zoho.revenue.addProduct('Fence', odd);
    zoho.revenue.addProduct('Gate', 'gate-1');
    expect(criteriaValue(odd)).toBe('FENCE-\\(6\\,FT\\)\\\\A');
    expect(await client.findProductByCode(odd)).toEqual({ id, code: odd });
    expect(zoho.api.requestsTo('GET', '/crm/v8/Products/search').at(-1)!.query.get('criteria')).toBe(`(Product_Code:equals:${criteriaValue(odd)})`);
    // Zoho's search ignores case; a Product_Code is taken only as written.
    expect(await client.findProductByCode('GATE-1')).toBeNull();
    expect(await client.findProductByCode('NOWHERE')).toBeNull();
  });

  it("creates a Quote (201) and Zoho's refusals inside data[] fail it with their code: MANDATORY_NOT_FOUND, DUPLICATE_DATA", async () => {
    const deal = zoho.addRecord('Deals');
    const product = zoho.revenue.addProduct('Fence', 'F-1');
    const rows = [{ Product_Name: { id: product }, Quantity: 2, List_Price: jsonCents(1050n), Discount: jsonCents(100n) }];
    const quote = { Subject: 'Drawing 1 - Front', Deal_Name: { id: deal }, Account_Name: { id: '77' }, Quoted_Items: rows, Discount: 0, Tax: 0, Adjustment: 0 };
    const id = await client.createQuote(quote);
    expect(zoho.revenue.fieldsOf('Quotes', id)).toMatchObject({ Sub_Total: 20, Grand_Total: 20 });

    const noAccount = await failureOf(client.createQuote({ ...quote, Account_Name: undefined }));
    expect(noAccount.excerpt).toMatch(/^MANDATORY_NOT_FOUND: required field not found .*Account_Name/);
    const noProduct = await failureOf(client.createQuote({ ...quote, Quoted_Items: [{ Quantity: 1 }] }));
    expect(noProduct.excerpt).toMatch(/^MANDATORY_NOT_FOUND: .*Quoted_Items\[0\]\.Product_Name/);
    zoho.revenue.uniqueQuoteSubject = true;
    try {
      const twin = await failureOf(client.createQuote(quote));
      expect(twin.excerpt).toMatch(/^DUPLICATE_DATA: duplicate data .*"api_name":"Subject"/);
    } finally {
      zoho.revenue.uniqueQuoteSubject = false;
    }
    expect((await client.findQuotes('Drawing 1 -')).map((q) => q.id)).toContain(id);
  });

  it('an update appends rows without an id and removes rows named with _delete: replacing takes both', async () => {
    const deal = zoho.addRecord('Deals');
    const product = zoho.revenue.addProduct('Post', 'P-1');
    const row = (cents: bigint) => ({ Product_Name: { id: product }, Quantity: 1, List_Price: jsonCents(cents) });
    const id = await client.createQuote({ Subject: 'Drawing 2 - Side', Deal_Name: { id: deal }, Account_Name: { id: '77' }, Quoted_Items: [row(100n)] });
    await client.updateQuote(id, { Quoted_Items: [row(200n)] });
    expect((zoho.revenue.fieldsOf('Quotes', id).Quoted_Items as unknown[]).length).toBe(2);
    const existing = (zoho.revenue.fieldsOf('Quotes', id).Quoted_Items as Array<{ id: string }>).map((r) => ({ id: r.id, _delete: null }));
    await client.updateQuote(id, { Quoted_Items: [...existing, row(300n)] });
    expect(zoho.revenue.fieldsOf('Quotes', id)).toMatchObject({ Sub_Total: 3, Grand_Total: 3 });
    expect((zoho.revenue.fieldsOf('Quotes', id).Quoted_Items as unknown[]).length).toBe(1);
  });
});
