import { failureOf, ZohoClients } from '../support/zoho-clients.js';
import { jsonCents } from '../../src/record-crm/revenue/money.js';
import { coqlText, dayIn, StaleWriteError, ZohoRevenueClient } from '../../src/record-crm/zoho/zoho-revenue.client.js';
import { STANDARD_LAYOUT } from '../../sim/zoho/revenue.js';

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

  it("reads a layout's pipelines with their stages' order and forecast_type; the org's time zone", async () => {
    zoho.revenue.addPipeline('Installs', [
      { value: 'Site Visit', forecast: 'Open' },
      { value: 'Won Install', forecast: 'Closed Won' },
      { value: 'Installed', forecast: 'Open' },
    ]);
    const pipelines = await client.pipelines(STANDARD_LAYOUT.id);
    expect(pipelines.map((p) => [p.name, p.default])).toEqual([
      ['Standard', true],
      ['Installs', false],
    ]);
    expect(pipelines[1].stages).toEqual([
      { value: 'Site Visit', sequence: 1, forecast: 'Open' },
      { value: 'Won Install', sequence: 2, forecast: 'Closed Won' },
      { value: 'Installed', sequence: 3, forecast: 'Open' },
    ]);
    expect(zoho.api.requestsTo('GET', '/crm/v8/settings/pipeline').at(-1)!.query.get('layout_id')).toBe(STANDARD_LAYOUT.id);
    // Kept 10 minutes per layout.
    await client.pipelines(STANDARD_LAYOUT.id);
    expect(zoho.api.requestsTo('GET', '/crm/v8/settings/pipeline')).toHaveLength(1);
    const unknown = await failureOf(client.pipelines('4150868000000000001'));
    expect(unknown.excerpt).toBe('INVALID_DATA: Invalid layoutid {"param_name":"layout_id"}');

    zoho.orgTimeZone = 'Pacific/Auckland';
    expect(await new ZohoRevenueClient(clients.client()).orgTimeZone()).toBe('Pacific/Auckland');
    expect(dayIn(new Date('2026-11-30T12:30:00Z'), 'Pacific/Auckland')).toBe('2026-12-01');
    zoho.orgTimeZone = 'Not/AZone';
    expect(await new ZohoRevenueClient(clients.client()).orgTimeZone()).toBeNull();
    zoho.orgTimeZone = 'UTC';
  });

  it('an update sends trigger and If-Unmodified-Since: a stale one is 412 (StaleWriteError); a held one answers its $approval_state', async () => {
    const id = zoho.addRecord('Deals', undefined, { Stage: 'Qualification' });
    const deal = (await client.getRecord('Deals', id))!;
    // The layout as captured real answers show it: `$layout_id`, no `Layout`.
    expect(deal).toMatchObject({ $layout_id: { id: STANDARD_LAYOUT.id, name: STANDARD_LAYOUT.name }, Pipeline: 'Standard' });
    expect(deal).not.toHaveProperty('Layout');
    expect(await client.updateRecord('Deals', id, { Amount: 5 }, { unmodifiedSince: deal.Modified_Time as string, trigger: ['workflow'] })).toEqual({
      approvalState: 'approved',
    });
    expect(zoho.revenue.triggers.at(-1)).toEqual({ module: 'Deals', id, trigger: ['workflow'] });
    expect(zoho.api.requestsTo('PUT', `/crm/v8/Deals/${id}`).at(-1)!.headers['if-unmodified-since']).toBe(deal.Modified_Time);
    // A rep's edit a second later: the old read's time is stale.
    zoho.modifyRecord('Deals', id, { Stage: 'Needs Analysis' }, new Date(Date.now() + 1_000));
    await expect(client.updateRecord('Deals', id, { Amount: 6 }, { unmodifiedSince: deal.Modified_Time as string })).rejects.toBeInstanceOf(StaleWriteError);
    expect(zoho.revenue.fieldsOf('Deals', id).Amount).toBe(5);

    zoho.revenue.approvalOnUpdate.add('Deals');
    try {
      expect(await client.updateRecord('Deals', id, { Amount: 7 }, { trigger: ['workflow', 'approval'] })).toEqual({
        approvalState: 'approval_process_pending',
      });
      expect(zoho.revenue.fieldsOf('Deals', id).Amount).toBe(5);
      expect(await client.updateRecord('Deals', id, { Amount: 7 }, { trigger: [] })).toEqual({ approvalState: 'approved' });
      expect(zoho.revenue.fieldsOf('Deals', id).Amount).toBe(7);
    } finally {
      zoho.revenue.approvalOnUpdate.clear();
    }
  });

  it('a Quote whose rows a single GET cuts ($has_more) is read whole, the rest from the Quoted_Items subform module', async () => {
    const deal = zoho.addRecord('Deals');
    const product = zoho.revenue.addProduct('Picket', 'PK-1');
    const rows = Array.from({ length: 5 }, (_, i) => ({ Product_Name: { id: product }, Quantity: i + 1, List_Price: 1 }));
    const id = await client.createQuote({ Subject: 'Drawing 9 - Long', Deal_Name: { id: deal }, Account_Name: { id: '77' }, Quoted_Items: rows });
    zoho.revenue.subformRowsShown = 2;
    try {
      const quote = (await client.getRecord('Quotes', id))!;
      expect((quote.Quoted_Items as unknown[]).length).toBe(5);
      expect(JSON.parse(zoho.api.requestsTo('POST', '/crm/v8/coql').at(-1)!.body.toString()).select_query).toMatch(
        new RegExp(`^select Product_Name, Quantity, Net_Total from Quoted_Items where Parent_Id = '${id}'`),
      );
    } finally {
      zoho.revenue.subformRowsShown = 200;
    }
  });

  it("reads a subform's own fields (GET /settings/fields?module=Quoted_Items) as the org spells them", async () => {
    zoho.revenue.subformKeys.List_Price = 'ListPrice';
    try {
      const fields = await new ZohoRevenueClient(clients.client()).fieldsOf('Quoted_Items');
      expect(fields).toContainEqual({ apiName: 'ListPrice', dataType: 'currency' });
      expect(fields.map((f) => f.apiName)).not.toContain('List_Price');
    } finally {
      zoho.revenue.subformKeys.List_Price = 'List_Price';
    }
  });

  it('finds products by their exact Product_Code with COQL, 50 codes a query, just-created ones too (no search-index lag)', async () => {
    zoho.searchLagMs = 60_000;
    try {
      const odd = "FENCE-(6,FT)\\A 'x'";
      const id = zoho.revenue.addProduct('Fence', odd);
      const gate = zoho.revenue.addProduct('Gate', 'gate-1');
      // Kaizen #171: a quote doubled, a backslash left alone.
      expect(coqlText(odd)).toBe("'FENCE-(6,FT)\\A ''x'''");
      // Search misses both (just written); the Query API reads them as written.
      const searched = await clients.client().request({ endpoint: 'GET /Products/search', method: 'GET', path: '/Products/search', params: { word: 'Fence' } });
      expect(searched.status).toBe(204);
      expect(await client.findProductsByCodes([odd, 'gate-1', 'NOWHERE'])).toEqual([
        { id, code: odd },
        { id: gate, code: 'gate-1' },
      ]);
      const query = zoho.api.requestsTo('POST', '/crm/v8/coql').at(-1)!.body.toString();
      expect(JSON.parse(query).select_query).toBe(
        `select Product_Code from Products where Product_Code in (${coqlText(odd)}, 'gate-1', 'NOWHERE') limit 200 offset 0`,
      );
      // Zoho's comparison may ignore case; a Product_Code is taken only as written.
      expect(await client.findProductsByCodes(['GATE-1'])).toEqual([]);
      // 51 codes: two queries (Zoho refuses more than 50 values in an `in`).
      const before = zoho.api.requestsTo('POST', '/crm/v8/coql').length;
      const many = Array.from({ length: 51 }, (_, i) => `MANY-${i}`);
      many.forEach((code) => zoho.revenue.addProduct(code, code));
      expect(await client.findProductsByCodes(many)).toHaveLength(51);
      expect(zoho.api.requestsTo('POST', '/crm/v8/coql').length - before).toBe(2);
    } finally {
      zoho.searchLagMs = 0;
    }
  });

  it("COQL as Zoho answers it: pages of 200 while more_records, 204 for none, its refusals' codes", async () => {
    for (let i = 0; i < 205; i++) zoho.revenue.addProduct(`Paged ${i}`, `PAGED-${i}`);
    const rows = await client.query("select Product_Code from Products where Product_Code like 'PAGED-%'");
    expect(rows).toHaveLength(205);
    expect(new Set(rows.map((r) => r.id)).size).toBe(205);
    expect(await client.query("select Product_Code from Products where Product_Code = 'NONE'")).toEqual([]);
    const badField = await failureOf(client.query("select product_code from Products where Product_Code = 'x'"));
    expect(badField.excerpt).toMatch(/^INVALID_QUERY: .*"column_name":"product_code"/);
    const tooMany = await failureOf(
      client.query(`select Product_Code from Products where Product_Code in (${Array.from({ length: 51 }, (_, i) => `'${i}'`).join(',')})`),
    );
    expect(tooMany.excerpt).toMatch(/^LIMIT_EXCEEDED/);
    const syntax = await failureOf(client.query('select from Products'));
    expect(syntax.excerpt).toMatch(/^SYNTAX_ERROR/);
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
