import type { QueryableModule } from './coql.js';
import { searchRecords } from './zoho-search.js';
import type { SimHandler, SimRequest, SimResponse, SimServer } from '../common/sim-server.js';
import type { ScopedCall } from './scopes.js';
import { REP, type MinifiedUser } from './zoho-types.js';

/**
 * Zoho CRM's revenue side, as Zoho's v8 OpenAPI files (`v8.0/record/record.yaml`, `v8.0/fields/fields.yaml`) and
 * its Node SDK describe it: Products (found by `GET /Products/search?criteria=`), Quotes with their Quoted_Items
 * subform (`POST /Quotes`, `PUT /Quotes/{id}`, `GET /Quotes/search`), `PUT /Deals/{id}`, and the Deals' Stage pick list
 * (`GET /settings/fields?module=Deals`). Zoho computes a Quote's figures itself from its rows, at the cent:
 * row total = round(list price × quantity), net = total − discount; Sub_Total = Σ net;
 * Grand_Total = Sub_Total − Discount + Tax + Adjustment.
 */

/** What the revenue routes need of ZohoSim: its token and scope check, its records of a module, its ids. */
export interface RevenueHost {
  authed(call: ScopedCall, handler: SimHandler): SimHandler;
  records(module: 'Deals' | 'Quotes'): ReadonlyMap<string, { id: string; fields: Record<string, unknown>; modifiedAt: number; modifiedBy?: MinifiedUser }>;
  /** The user the API's token acts for: Modified_By of a write through the API. */
  apiUser(): MinifiedUser;
  addRecord(module: 'Quotes', id: string, fields: Record<string, unknown>): string;
  newId(): string;
  /** Whether a record written then is in the search index yet (ZohoSim.searchLagMs). */
  indexed(writtenAt: number): boolean;
  /** A record was edited (through the API or by hand): Zoho notifies the channels watching it, whoever wrote. */
  edited(module: 'Deals' | 'Quotes', id: string, fields: string[]): void;
}

export interface ZohoProduct {
  id: string;
  name: string;
  code: string;
  writtenAt: number;
}

/** A stage of a pipeline and what it forecasts (crm-oas v8.0/pipeline/pipeline.yaml, `maps[].forecast_type`). */
export interface PipelineStage {
  value: string;
  forecast: 'Open' | 'Closed Won' | 'Closed Lost';
}

/** A Deals pipeline of a layout: its stages in its own order (`sequence_number` 1, 2, …). */
export interface SimPipeline {
  id: string;
  name: string;
  default: boolean;
  stages: PipelineStage[];
}

/** Zoho's default Deals pipeline, in its order. */
export const DEFAULT_DEAL_STAGES: PipelineStage[] = [
  { value: 'Qualification', forecast: 'Open' },
  { value: 'Needs Analysis', forecast: 'Open' },
  { value: 'Value Proposition', forecast: 'Open' },
  { value: 'Id. Decision Makers', forecast: 'Open' },
  { value: 'Perception Analysis', forecast: 'Open' },
  { value: 'Proposal/Price Quote', forecast: 'Open' },
  { value: 'Negotiation/Review', forecast: 'Open' },
  { value: 'Closed Won', forecast: 'Closed Won' },
  { value: 'Closed Lost', forecast: 'Closed Lost' },
  { value: 'Closed-Lost to Competition', forecast: 'Closed Lost' },
];

/** The Deals' layout every org has, and its pipeline; a Deal without a Layout or Pipeline of its own is in them. */
export const STANDARD_LAYOUT = { id: '4150868000000091055', name: 'Standard' } as const;
export const STANDARD_PIPELINE = 'Standard';

type Item = Record<string, unknown>;
type SubformKey = 'Product_Name' | 'Quantity' | 'List_Price' | 'Discount' | 'Description';

const error = (code: string, message: string, details: Record<string, unknown> = {}) => ({ code, details, message, status: 'error' });
const mandatory = (path: string, apiName: string) => error('MANDATORY_NOT_FOUND', 'required field not found', { api_name: apiName, json_path: path });
const invalid = (path: string, apiName: string, message = 'invalid data', more: Record<string, unknown> = {}) =>
  error('INVALID_DATA', message, { api_name: apiName, json_path: path, ...more });

export class ZohoRevenueSim {
  readonly products = new Map<string, ZohoProduct>();
  /**
   * The Deals' layouts and their pipelines (`GET /settings/pipeline?layout_id=`). A Deal's Stage must be a stage of its
   * own pipeline (its `Pipeline`, else its layout's default one): any other is refused with INVALID_DATA.
   */
  readonly layouts = new Map<string, { name: string; pipelines: SimPipeline[]; status?: 'active' | 'inactive' | 'downgraded'; visible?: boolean }>([
    [
      STANDARD_LAYOUT.id,
      { name: STANDARD_LAYOUT.name, pipelines: [{ id: '4150868000000091101', name: STANDARD_PIPELINE, default: true, stages: [...DEFAULT_DEAL_STAGES] }] },
    ],
  ]);
  /** Each stage's id, the same in every pipeline that has it (a pipeline maps the Stage pick list's values). */
  private readonly stageIds = new Map<string, string>();
  /**
   * The org's approval process on updates of these modules: while a write's `trigger` includes `approval` (or it sends
   * none: all run), Zoho holds the update, answers `$approval_state: approval_process_pending` and leaves the record
   * as it was (record.yaml, updateRecord's `$approval_state`).
   */
  readonly approvalOnUpdate = new Set<'Deals' | 'Quotes'>();
  /** Every update's `trigger` as sent (undefined: none sent), in order. */
  readonly triggers: Array<{ module: 'Deals' | 'Quotes'; id: string; trigger: unknown }> = [];
  /**
   * How many subform rows a single-record GET shows; past them the answer says `$has_more: {"Quoted_Items": true}`
   * and the rest are read from the subform's own module (COQL `from Quoted_Items where Parent_Id = …`, Zoho's Subform
   * API and Query API pages). The shape of `$has_more` is not in crm-oas: unsure.
   */
  subformRowsShown = 200;
  /**
   * How a row's bare-number Discount is read: an amount, or a percentage. Unsure in Zoho's material: crm-oas
   * `v8.0/record.json` has no line-item example (its only `discount` is `PricingDetails`'s, a price book tier);
   * record.yaml's Invoice example adds up as a percentage, the SDK samples write one as `"12.5%"` (see rowFigures).
   */
  rowDiscountUnit: 'amount' | 'percent' = 'amount';
  /** The API names this org's Quoted_Items fields have (read exactly: another spelling is not the field). */
  subformKeys: Record<SubformKey, string> = {
    Product_Name: 'Product_Name',
    Quantity: 'Quantity',
    List_Price: 'List_Price',
    Discount: 'Discount',
    Description: 'Description',
  };
  /**
   * The org's modules (`GET /settings/modules`): API name and plural label; an org may rename a module (its label) or
   * lack one (removed here). Zoho's own ones are listed also when crm-sync does not automate them.
   */
  readonly modules = new Map<string, { label: string; apiSupported: boolean; moduleName?: string }>([
    ['Leads', { label: 'Leads', apiSupported: true }],
    ['Contacts', { label: 'Contacts', apiSupported: true }],
    ['Accounts', { label: 'Accounts', apiSupported: true }],
    // Zoho's web app knows Deals by their old name (`module_name` Potentials), as in a standard org.
    ['Deals', { label: 'Deals', apiSupported: true, moduleName: 'Potentials' }],
    ['Quotes', { label: 'Quotes', apiSupported: true }],
    ['Products', { label: 'Products', apiSupported: true }],
  ]);

  /** The module whose web name (`module_name`, its API name when it has none) is `name`. */
  moduleOfWebName(name: string): string | undefined {
    return [...this.modules.entries()].find(([apiName, m]) => (m.moduleName ?? apiName) === name)?.[0];
  }
  /**
   * The org's taxes (`GET /org/taxes`, Zoho's Get Taxes page: `taxes[]` of `id`, `name`, `display_label`, `value` in
   * percent). A Quote's taxes are these, named in its `$line_tax` (`name`, `percentage`); Zoho computes the Quote's
   * `Tax` from them on `Sub_Total − Discount` (each tax rounded at the cent) and ignores a `Tax` written: no Zoho
   * example writes one, so the simulator takes the reading that loses a written one.
   */
  readonly taxes: Array<{ id: string; name: string; value: number }> = [];
  /** Quotes' Account_Name is mandatory (record.yaml's Quotes example says so). */
  quoteAccountMandatory = true;
  /** A field set unique in the org's settings: a second Quote with an equal Subject is DUPLICATE_DATA. */
  uniqueQuoteSubject = false;

  constructor(private readonly host: RevenueHost) {}

  /** Routes; registered before ZohoSim's `/:module/:id` ones, which would take `Products/search` and `settings/fields`. */
  install(api: SimServer): void {
    const a = (call: ScopedCall, h: SimHandler) => this.host.authed(call, h);
    api.route(
      'GET',
      '/crm/v8/settings/fields',
      a({ call: 'fields_metadata' }, (req) => this.fields(req)),
    );
    api.route(
      'GET',
      '/crm/v8/settings/pipeline',
      a({ call: 'pipelines' }, (req) => this.pipelines(req)),
    );
    api.route(
      'GET',
      '/crm/v8/settings/layouts',
      a({ call: 'layouts' }, (req) => this.layoutList(req)),
    );
    api.route(
      'GET',
      '/crm/v8/settings/modules',
      a({ call: 'modules_metadata' }, () => this.moduleList()),
    );
    api.route(
      'GET',
      '/crm/v8/org/taxes',
      a({ call: 'org' }, () => this.taxList()),
    );
    api.route(
      'GET',
      '/crm/v8/Products/search',
      a({ call: 'search_records', module: 'Products' }, (req) => this.search(req, 'Products')),
    );
    api.route(
      'GET',
      '/crm/v8/Quotes/search',
      a({ call: 'search_records', module: 'Quotes' }, (req) => this.search(req, 'Quotes')),
    );
    api.route(
      'POST',
      '/crm/v8/Quotes',
      a({ call: 'create_record', module: 'Quotes' }, (req) => this.createQuotes(req)),
    );
    api.route(
      'PUT',
      '/crm/v8/Quotes/:id',
      a({ call: 'update_record', module: 'Quotes' }, (req) => this.update(req, 'Quotes')),
    );
    api.route(
      'PUT',
      '/crm/v8/Deals/:id',
      a({ call: 'update_record', module: 'Deals' }, (req) => this.update(req, 'Deals')),
    );
  }

  /** A pipeline added to a layout (the standard one by default), as an admin would in Zoho's settings. */
  addPipeline(name: string, stages: PipelineStage[], layoutId: string = STANDARD_LAYOUT.id): SimPipeline {
    const layout = this.layouts.get(layoutId) ?? { name: `Layout ${layoutId}`, pipelines: [] };
    this.layouts.set(layoutId, layout);
    const pipeline: SimPipeline = { id: this.host.newId(), name, default: layout.pipelines.length === 0, stages: [...stages] };
    layout.pipelines.push(pipeline);
    return pipeline;
  }

  /** A pipeline by name (of the standard layout by default). */
  pipeline(name: string = STANDARD_PIPELINE, layoutId: string = STANDARD_LAYOUT.id): SimPipeline {
    const found = this.layouts.get(layoutId)?.pipelines.find((p) => p.name === name);
    if (!found) throw new Error(`no pipeline ${name} in layout ${layoutId}`);
    return found;
  }

  /** The pipeline a Deal is in: its `Pipeline` in its `Layout` (defaults: the standard layout, its default pipeline). */
  pipelineOfDeal(fields: Record<string, unknown>): SimPipeline | null {
    const layoutId = lookupId(fields.Layout) ?? STANDARD_LAYOUT.id;
    const pipelines = this.layouts.get(layoutId)?.pipelines ?? [];
    const name = typeof fields.Pipeline === 'string' ? fields.Pipeline : null;
    return (name === null ? pipelines.find((p) => p.default) : pipelines.find((p) => p.name === name)) ?? null;
  }

  addProduct(name: string, code: string): string {
    const id = this.host.newId();
    this.products.set(id, { id, name, code, writtenAt: Date.now() });
    return id;
  }

  /** A record as `GET /{module}/{id}` shows it: a Quote's rows past subformRowsShown cut, with `$has_more`. */
  shownRecord(module: string, record: Item): Item {
    const rows = record.Quoted_Items;
    if (module !== 'Quotes' || !Array.isArray(rows) || rows.length <= this.subformRowsShown) return record;
    return { ...record, Quoted_Items: rows.slice(0, this.subformRowsShown), $has_more: { Quoted_Items: true } };
  }

  /** Every Quote's rows as the subform's own module (`Quoted_Items`), each with its Quote as `Parent_Id`. */
  queryableQuoteRows(): QueryableModule {
    const records = this.quotes().flatMap((q) =>
      ((q.fields.Quoted_Items as Item[] | undefined) ?? []).map((row) => ({ id: String(row.id), fields: { ...row, Parent_Id: { id: q.id } } })),
    );
    return { records, fields: ['Parent_Id', 'Product_Name', 'Quantity', 'List_Price', 'Discount', 'Total', 'Net_Total', 'Description'] };
  }

  /** Products as COQL reads them (no indexing lag). */
  queryableProducts(): QueryableModule {
    const records = [...this.products.values()].map((p) => ({ id: p.id, fields: { Product_Name: p.name, Product_Code: p.code } }));
    return { records, fields: ['Product_Name', 'Product_Code', 'Unit_Price', 'Product_Active'] };
  }

  /** A record's fields as Zoho holds them (a Quote's computed figures included). */
  fieldsOf(module: 'Deals' | 'Quotes', id: string): Record<string, unknown> {
    const record = this.host.records(module).get(id);
    if (!record) throw new Error(`no ${module} record ${id}`);
    return record.fields;
  }

  /** Changes a record as a rep would in Zoho's UI (Modified_By the rep, Modified_Time now); a Quote's totals follow its rows. */
  editByHand(module: 'Deals' | 'Quotes', id: string, fields: Record<string, unknown>, by: MinifiedUser = REP): void {
    const record = this.host.records(module).get(id)!;
    Object.assign(this.fieldsOf(module, id), fields);
    if (module === 'Quotes' && fields.Quoted_Items !== undefined) Object.assign(record.fields, totals(record.fields));
    record.modifiedAt = Date.now();
    record.modifiedBy = by;
    this.host.edited(module, id, Object.keys(fields));
  }

  quotes(): Array<{ id: string; fields: Record<string, unknown>; modifiedAt: number }> {
    return [...this.host.records('Quotes').values()];
  }

  quotesOfDeal(dealId: string): Array<{ id: string; fields: Record<string, unknown> }> {
    return this.quotes().filter((q) => (q.fields.Deal_Name as { id?: string } | undefined)?.id === dealId);
  }

  private fields(req: SimRequest): SimResponse {
    const module = req.query.get('module');
    if (!module) return { status: 400, body: error('REQUIRED_PARAM_MISSING', 'One of the expected parameter is missing', { param_name: 'module' }) };
    if (module === 'Quoted_Items') {
      // The subform's own fields (Zoho's Subform API page: `fields?module={subform API name}`), as this org spells them.
      const types: Record<SubformKey, string> = {
        Product_Name: 'lookup',
        Quantity: 'double',
        List_Price: 'currency',
        Discount: 'currency',
        Description: 'textarea',
      };
      const fields = (Object.keys(types) as SubformKey[]).map((key, i) => ({ api_name: this.subformKeys[key], data_type: types[key], id: String(8800 + i) }));
      return { status: 200, body: { fields: [...fields, { api_name: 'Net_Total', data_type: 'currency', read_only: true, id: '8890' }] } };
    }
    // crm-oas v8 fields.yaml: api_name, field_label, data_type, pick_list_values (display_value, actual_value).
    const field = (api_name: string, field_label: string, data_type = 'text', picks: string[] | null = null, id = String(8900 + api_name.length)) => ({
      api_name,
      field_label,
      display_label: field_label,
      data_type,
      id,
      pick_list_values: picks ? picks.map((value, i) => ({ display_value: value, actual_value: value, sequence_number: i + 1, id: String(9000 + i) })) : [],
    });
    const person = [field('Full_Name', 'Full Name'), field('Email', 'Email', 'email'), field('Phone', 'Phone', 'phone'), field('Job_Number', 'Job Number')];
    const byModule: Record<string, unknown[]> = {
      Deals: [
        field('Deal_Name', 'Deal Name'),
        // The Stage pick list of every pipeline's values, in the order they were added (custom ones after Zoho's own).
        { ...field('Stage', 'Stage', 'picklist', this.stageValues()), id: '8999' },
        field('Amount', 'Amount', 'currency'),
        field('Lead_Source', 'Lead Source', 'picklist', ['Advertisement', 'Referral', 'Web Site']),
        field('Job_Number', 'Job Number'),
      ],
      Quotes: [
        field('Subject', 'Subject'),
        field('Quote_Stage', 'Quote Stage', 'picklist', ['Draft', 'Negotiation', 'Delivered', 'Confirmed']),
        field('Job_Number', 'Job Number'),
      ],
      Leads: [...person, field('Lead_Status', 'Lead Status', 'picklist', ['Not Contacted', 'Contacted', 'Qualified'])],
      Contacts: person,
    };
    return { status: 200, body: { fields: byModule[module] ?? [] } };
  }

  /** `GET /org/taxes`: the org's taxes, 204 when it has none (the SDK samples read 204 as "No Content"). */
  private taxList(): SimResponse {
    if (this.taxes.length === 0) return { status: 204 };
    const taxes = this.taxes.map((t, i) => ({ id: t.id, name: t.name, display_label: `${t.name} - ${t.value} %`, value: t.value, sequence_number: i + 1 }));
    return { status: 200, body: { taxes, preference: { auto_populate_tax: false, modify_tax_rates: false } } };
  }

  /** A Quote's `$line_tax` as the org's taxes, or the error inside `data[i]` (a tax the org lacks, or another rate). */
  private lineTaxes(input: unknown, at: string): Item[] | Item {
    if (input === undefined) return [];
    if (!Array.isArray(input)) return invalid(`${at}.$line_tax`, '$line_tax');
    const taxes: Item[] = [];
    for (const [i, raw] of input.entries()) {
      const item = (raw ?? {}) as Item;
      const tax = this.taxes.find((t) => (item.id !== undefined && String(item.id) === t.id) || item.name === t.name);
      if (!tax) return invalid(`${at}.$line_tax[${i}]`, '$line_tax', 'invalid data', { reason: 'no such tax in the org' });
      if (item.percentage !== undefined && Number(item.percentage) !== tax.value) {
        return invalid(`${at}.$line_tax[${i}].percentage`, '$line_tax', 'invalid data', { reason: 'the rate is not the tax rate' });
      }
      taxes.push({ id: tax.id, name: tax.name, percentage: tax.value });
    }
    return taxes;
  }

  /** Every pipeline's stage values, each once, in the order they were added. */
  private stageValues(): string[] {
    return [...new Set([...this.layouts.values()].flatMap((l) => l.pipelines.flatMap((p) => p.stages.map((s) => s.value))))];
  }

  private stageId(value: string): string {
    if (!this.stageIds.has(value)) this.stageIds.set(value, this.host.newId());
    return this.stageIds.get(value)!;
  }

  /**
   * `GET /settings/pipeline?layout_id=` (crm-oas v8.0/pipeline/pipeline.yaml, getPipelines): `{"pipeline": [{id,
   * display_value, actual_value, default, maps: [{id, display_value, actual_value, sequence_number, forecast_type,
   * forecast_category}]}]}`; no layout_id: 400 REQUIRED_PARAM_MISSING; an unknown one: 400 INVALID_DATA "Invalid layoutid".
   */
  private pipelines(req: SimRequest): SimResponse {
    const layoutId = req.query.get('layout_id');
    if (!layoutId) return { status: 400, body: error('REQUIRED_PARAM_MISSING', 'One of the expected parameter is missing', { param_name: 'layout_id' }) };
    const layout = this.layouts.get(layoutId);
    if (!layout) return { status: 400, body: error('INVALID_DATA', 'Invalid layoutid', { param_name: 'layout_id' }) };
    if (layout.pipelines.length === 0) return { status: 204 };
    const category = { Open: 'Pipeline', 'Closed Won': 'Closed', 'Closed Lost': 'Omitted' } as const;
    const pipeline = layout.pipelines.map((p) => ({
      display_value: p.name,
      default: p.default,
      maps: p.stages.map((stage, i) => ({
        display_value: stage.value,
        sequence_number: i + 1,
        forecast_category: { name: category[stage.forecast], id: this.stageId(`category:${stage.forecast}`) },
        actual_value: stage.value,
        id: this.stageId(stage.value),
        forecast_type: stage.forecast,
      })),
      actual_value: p.name,
      id: p.id,
    }));
    return { status: 200, body: { pipeline } };
  }

  /**
   * `GET /settings/layouts?module=` (crm-oas v8.0/layouts/layouts.yaml, getLayouts): `{"layouts": [{id, name,
   * display_label, api_name, status, visible, generated_type, …}]}`; no module: 400 REQUIRED_PARAM_MISSING; one the org
   * lacks: 400 INVALID_MODULE. Only the Deals' layouts are kept here; other modules have the standard one.
   */
  private layoutList(req: SimRequest): SimResponse {
    const module = req.query.get('module');
    if (!module) return { status: 400, body: error('REQUIRED_PARAM_MISSING', 'One of the expected parameter is missing', { param_name: 'module' }) };
    if (!this.modules.has(module)) return { status: 400, body: error('INVALID_MODULE', 'the module name given seems to be invalid', { param_name: 'module' }) };
    const layouts = module === 'Deals' ? [...this.layouts.entries()] : [[STANDARD_LAYOUT.id, { name: STANDARD_LAYOUT.name }] as const];
    return {
      status: 200,
      body: {
        layouts: layouts.map(([id, l]) => ({
          id,
          name: l.name,
          display_label: l.name,
          api_name: l.name.replace(/\W+/g, '_'),
          status: 'status' in l ? (l.status ?? 'active') : 'active',
          visible: 'visible' in l ? (l.visible ?? true) : true,
          generated_type: id === STANDARD_LAYOUT.id ? 'system' : 'custom',
        })),
      },
    };
  }

  /**
   * `GET /settings/modules` (crm-oas v8.0/modules/modules.yaml, getModules): `{"modules": [{id, api_name,
   * plural_label, singular_label, module_name, api_supported, status, …}]}`.
   */
  private moduleList(): SimResponse {
    const modules = [...this.modules.entries()].map(([apiName, m], i) => ({
      id: String(4150868000000002175n + BigInt(i)),
      api_name: apiName,
      module_name: m.moduleName ?? apiName,
      plural_label: m.label,
      singular_label: m.label.replace(/s$/, ''),
      actual_plural_label: m.label,
      api_supported: m.apiSupported,
      status: 'visible',
      generated_type: 'default',
    }));
    return { status: 200, body: { modules } };
  }

  /** `criteria=(Field:equals|starts_with:value)`; `\(`, `\)`, `\,` and `\\` escaped in the value. 204 when nothing matches. */
  private search(req: SimRequest, module: 'Products' | 'Quotes'): SimResponse {
    const criteria = req.query.get('criteria');
    // module_search.yaml: a record just written may not be found yet (indexing).
    const quotes = () => this.quotes().filter((q) => this.host.indexed(q.modifiedAt));
    const products = () => [...this.products.values()].filter((p) => this.host.indexed(p.writtenAt));
    if (!criteria && module === 'Quotes') return searchRecords(quotes(), req.query);
    if (!criteria && module === 'Products') {
      return searchRecords(
        products().map((p) => ({ id: p.id, fields: { Product_Name: p.name, Product_Code: p.code } })),
        req.query,
      );
    }
    if (!criteria) return { status: 400, body: error('REQUIRED_PARAM_MISSING', 'One of the expected parameter is missing', { param_name: 'criteria' }) };
    const match = /^\((\w+):(equals|starts_with):((?:\\.|[^\\()])*)\)$/.exec(criteria);
    if (!match)
      return { status: 400, body: error('INVALID_QUERY', 'invalid query formed', { reason: 'the criteria is not well formed', param_name: 'criteria' }) };
    const [, field, operator, raw] = match;
    if (/(^|[^\\]),/.test(raw))
      return { status: 400, body: error('INVALID_QUERY', 'invalid query formed', { reason: 'an unescaped comma', param_name: 'criteria' }) };
    const value = raw.replace(/\\(.)/g, '$1').toLowerCase();
    const rows: Item[] =
      module === 'Products'
        ? products().map((p) => ({ id: p.id, Product_Name: p.name, Product_Code: p.code }))
        : quotes().map((q) => ({ id: q.id, ...q.fields }));
    // Zoho's search is case-insensitive.
    const found = rows.filter((row) => {
      const text = typeof row[field] === 'string' ? (row[field] as string).toLowerCase() : null;
      return text !== null && (operator === 'equals' ? text === value : text.startsWith(value));
    });
    if (found.length === 0) return { status: 204 };
    return { status: 200, body: { data: found, info: { per_page: 200, count: found.length, page: 1, more_records: false } } };
  }

  private createQuotes(req: SimRequest): SimResponse {
    const data = (req.json as { data?: unknown } | undefined)?.data;
    if (!Array.isArray(data) || data.length === 0) return { status: 400, body: error('INVALID_DATA', 'body is not a valid data array') };
    const results = data.map((item, i) => this.createQuote((item ?? {}) as Item, i));
    return multiStatus(results, 201);
  }

  private createQuote(input: Item, index: number): Item {
    const at = `$.data[${index}]`;
    if (typeof input.Subject !== 'string' || input.Subject === '') return mandatory(`${at}.Subject`, 'Subject');
    if (this.quoteAccountMandatory && !lookupId(input.Account_Name)) return mandatory(`${at}.Account_Name`, 'Account_Name');
    if (input.Deal_Name !== undefined && !this.host.records('Deals').has(lookupId(input.Deal_Name) ?? ''))
      return invalid(`${at}.Deal_Name`, 'Deal_Name', 'invalid data');
    if (!Array.isArray(input.Quoted_Items) || input.Quoted_Items.length === 0) return mandatory(`${at}.Quoted_Items`, 'Quoted_Items');
    if (this.uniqueQuoteSubject) {
      const twin = this.quotes().find((q) => q.fields.Subject === input.Subject);
      if (twin) return error('DUPLICATE_DATA', 'duplicate data', { api_name: 'Subject', json_path: `${at}.Subject`, duplicate_record: { id: twin.id } });
    }
    const rows = this.rowsOf([], input.Quoted_Items as unknown[], `${at}.Quoted_Items`);
    if (!Array.isArray(rows)) return rows;
    const taxes = this.lineTaxes(input.$line_tax, at);
    if (!Array.isArray(taxes)) return taxes;
    const id = this.host.newId();
    const fields: Item = { ...withoutComputed(input), Quoted_Items: rows, $line_tax: taxes };
    this.host.addRecord('Quotes', id, { ...fields, ...totals(fields) });
    return success(id, 'record added');
  }

  /** `PUT /{module}/{id}` (updateRecord): an unknown id is a top-level INVALID_DATA naming the path's id. */
  private update(req: SimRequest, module: 'Deals' | 'Quotes'): SimResponse {
    if (!this.host.records(module).has(req.params.id)) {
      return { status: 400, body: error('INVALID_DATA', 'the related id given seems to be invalid', { resource_path_index: 1 }) };
    }
    const body = (req.json ?? {}) as { data?: unknown; trigger?: unknown };
    const data = body.data;
    if (!Array.isArray(data) || data.length !== 1) return { status: 400, body: error('INVALID_DATA', 'body is not a valid data array') };
    this.triggers.push({ module, id: req.params.id, trigger: body.trigger });
    // If-Unmodified-Since (Zoho's docs and SDK header): a record changed after that second is not written.
    const since = req.headers['if-unmodified-since'];
    const record = this.host.records(module).get(req.params.id)!;
    if (typeof since === 'string' && Math.floor(record.modifiedAt / 1000) * 1000 > Date.parse(since)) {
      // The error sits in data[0], as every per-record error of updateRecord does (record.json's Update Record answers).
      return { status: 412, body: { data: [error('ALREADY_MODIFIED', 'the record has been modified since the given time', { id: record.id })] } };
    }
    const runs = body.trigger === undefined ? ['workflow', 'approval', 'blueprint'] : Array.isArray(body.trigger) ? body.trigger : [];
    if (this.approvalOnUpdate.has(module) && runs.includes('approval')) {
      const held = success(record.id, 'record updated');
      return multiStatus([{ ...held, details: { ...(held.details as Item), $approval_state: 'approval_process_pending' } }], 200);
    }
    return multiStatus([this.updateOne(module, { ...((data[0] ?? {}) as Item), id: req.params.id }, 0)], 200);
  }

  private updateOne(module: 'Deals' | 'Quotes', input: Item, index: number): Item {
    const at = `$.data[${index}]`;
    if (input.id === undefined) return mandatory(`${at}.id`, 'id');
    const record = this.host.records(module).get(String(input.id));
    if (!record) return invalid(`${at}.id`, 'id', 'the id given seems to be invalid');
    const changes = withoutComputed(input);
    delete changes.id;
    if (module === 'Deals') {
      const pipeline = this.pipelineOfDeal({ ...record.fields, ...changes });
      const stages = pipeline?.stages.map((s) => s.value) ?? [];
      if (changes.Stage !== undefined && !stages.includes(String(changes.Stage)))
        return invalid(`${at}.Stage`, 'Stage', 'invalid data', { supported_values: stages });
      if (changes.Amount !== undefined && amountCents(changes.Amount) === null)
        return invalid(`${at}.Amount`, 'Amount', 'invalid data', { expected_data_type: 'currency' });
      if (changes.Closing_Date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(String(changes.Closing_Date)))
        return invalid(`${at}.Closing_Date`, 'Closing_Date', 'invalid data', { expected_data_type: 'date' });
      if (changes.Amount !== undefined) changes.Amount = Number(centsText(amountCents(changes.Amount)!));
      Object.assign(record.fields, changes);
      record.modifiedAt = Date.now();
      record.modifiedBy = this.host.apiUser();
      this.host.edited(module, record.id, Object.keys(changes));
      return success(record.id, 'record updated');
    }
    if (changes.Quoted_Items !== undefined) {
      if (!Array.isArray(changes.Quoted_Items)) return invalid(`${at}.Quoted_Items`, 'Quoted_Items');
      const rows = this.rowsOf((record.fields.Quoted_Items as Item[] | undefined) ?? [], changes.Quoted_Items, `${at}.Quoted_Items`);
      if (!Array.isArray(rows)) return rows;
      if (rows.length === 0) return mandatory(`${at}.Quoted_Items`, 'Quoted_Items');
      changes.Quoted_Items = rows;
    }
    if (changes.$line_tax !== undefined) {
      const taxes = this.lineTaxes(changes.$line_tax, at);
      if (!Array.isArray(taxes)) return taxes;
      changes.$line_tax = taxes;
    }
    Object.assign(record.fields, changes);
    Object.assign(record.fields, totals(record.fields));
    record.modifiedAt = Date.now();
    record.modifiedBy = this.host.apiUser();
    this.host.edited(module, record.id, Object.keys(changes));
    return success(record.id, 'record updated');
  }

  /**
   * The subform after an update (record.yaml, updateRecords): a row with an id and `_delete` is removed, a row with an
   * id is changed, a row without one is appended. Each row's figures are computed as Zoho does.
   */
  private rowsOf(existing: Item[], input: unknown[], at: string): Item[] | Item {
    const rows = existing.map((r) => ({ ...r }));
    for (const [i, raw] of input.entries()) {
      const row = (raw ?? {}) as Item;
      const path = `${at}[${i}]`;
      if (row.id !== undefined) {
        const index = rows.findIndex((r) => r.id === String(row.id));
        if (index < 0) return invalid(`${path}.id`, 'id', 'the id given seems to be invalid');
        if ('_delete' in row) rows.splice(index, 1);
        else rows[index] = rowFigures({ ...rows[index], ...row, id: rows[index].id }, this.rowDiscountUnit);
        continue;
      }
      const productId = lookupId(field(row, this.subformKeys.Product_Name));
      if (!productId) return mandatory(`${path}.Product_Name`, 'Product_Name');
      const product = this.products.get(productId);
      if (!product) return invalid(`${path}.Product_Name`, 'Product_Name', 'invalid data');
      const quantity = field(row, this.subformKeys.Quantity);
      if (quantity === undefined) return mandatory(`${path}.Quantity`, 'Quantity');
      const list = field(row, this.subformKeys.List_Price);
      if (amountCents(quantity === undefined ? 0 : (quantity as number)) === null || (list !== undefined && amountCents(list) === null))
        return invalid(`${path}.List_Price`, 'List_Price', 'invalid data', { expected_data_type: 'currency' });
      const added = {
        id: this.host.newId(),
        Product_Name: { id: product.id, name: product.name, Product_Code: product.code },
        Quantity: quantity,
        List_Price: list ?? 0,
        Discount: field(row, this.subformKeys.Discount) ?? 0,
        Description: field(row, this.subformKeys.Description) ?? null,
      };
      rows.push(rowFigures(added, this.rowDiscountUnit));
    }
    return rows;
  }
}

/**
 * A subform key as Zoho reads it: its field API name exactly (API names are case-sensitive: a `list_price` or
 * `List_price` is not `List_Price`, and is ignored as a field the subform does not have).
 */
function field(row: Item, name: string): unknown {
  return Object.hasOwn(row, name) ? row[name] : undefined;
}

function lookupId(value: unknown): string | null {
  const id = value && typeof value === 'object' ? (value as { id?: unknown }).id : undefined;
  return id === undefined || id === null || id === '' ? null : String(id);
}

/** Figures Zoho computes itself: a written one is ignored (Tax from `$line_tax`). */
const COMPUTED = ['Sub_Total', 'Grand_Total', 'Tax', 'Created_Time', 'Modified_Time'];

function withoutComputed(input: Item): Item {
  return Object.fromEntries(Object.entries(input).filter(([key]) => !COMPUTED.includes(key)));
}

function success(id: string, message: string): Item {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00');
  return { code: 'SUCCESS', details: { id, Modified_Time: now, Created_Time: now, $approval_state: 'approved' }, message, status: 'success' };
}

/** 201/200 when every item succeeded, 207 when some did, 400 when none did (record.yaml). */
function multiStatus(results: Item[], ok: number): SimResponse {
  const good = results.filter((r) => r.status === 'success').length;
  const status = good === results.length ? ok : good === 0 ? 400 : 207;
  return { status, body: { data: results } };
}

// --- Zoho's arithmetic, at the cent ---

const DECIMAL = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** A currency or number value (a JSON number, or its digits when beyond a double) in cents; null when not one. */
function amountCents(value: unknown): bigint | null {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : null;
  if (text === null || !DECIMAL.test(text)) return null;
  return scaled(text, 2);
}

/** `text` × 10^places, rounded half away from zero. */
function scaled(text: string, places: number): bigint {
  const [mantissa, exponentText = '0'] = text.toLowerCase().split('e');
  const negative = mantissa.startsWith('-');
  const [whole, fraction = ''] = mantissa.replace('-', '').split('.');
  let units = BigInt(`${whole}${fraction}`);
  let scale = fraction.length - Number(exponentText) - places;
  if (scale <= 0) units *= 10n ** BigInt(-scale);
  else {
    const d = 10n ** BigInt(scale);
    units = (units * 2n + d) / (d * 2n);
    scale = 0;
  }
  return negative ? -units : units;
}

function centsText(cents: bigint): string {
  const negative = cents < 0n;
  const digits = (negative ? -cents : cents).toString().padStart(3, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** Zoho answers currency as numbers; beyond a double's digits the simulator keeps the exact text. */
function money(cents: bigint): number | string {
  const text = centsText(cents);
  return Number(text).toFixed(2) === text ? Number(text) : text;
}

/**
 * A row's own figures: Total = round(List_Price × Quantity); Discount a percentage of it when written `"12.5%"` (the
 * SDK samples), and a bare number read in `unit` (an amount, or a percentage as record.yaml's Invoice example adds up).
 */
function rowFigures(row: Item, unit: 'amount' | 'percent'): Item {
  const quantityText = String(typeof row.Quantity === 'number' ? row.Quantity : (row.Quantity ?? '0'));
  const quantityScaled = scaled(quantityText, 6);
  const list = amountCents(row.List_Price) ?? 0n;
  const total = (list * quantityScaled * 2n + 1_000_000n) / 2_000_000n;
  const discountText = String(row.Discount ?? '0');
  const percent = discountText.endsWith('%') ? discountText.slice(0, -1) : unit === 'percent' ? discountText : null;
  const discount = percent !== null ? (total * scaled(percent, 4) * 2n + 1_000_000n) / 2_000_000n : (amountCents(discountText) ?? 0n);
  return {
    ...row,
    List_Price: money(list),
    Total: money(total),
    Discount: money(discount),
    Total_After_Discount: money(total - discount),
    Net_Total: money(total - discount),
    Tax: 0,
  };
}

/** A Quote's totals from its rows and its own Discount, Tax and Adjustment. */
function totals(fields: Item): Item {
  const rows = (fields.Quoted_Items as Item[] | undefined) ?? [];
  const sub = rows.reduce((sum, r) => sum + (amountCents(r.Net_Total) ?? 0n), 0n);
  const discount = amountCents(fields.Discount ?? 0) ?? 0n;
  // Each of the Quote's taxes on Sub_Total − Discount, rounded at the cent (half away from zero).
  const tax = ((fields.$line_tax as Item[] | undefined) ?? []).reduce(
    (sum, t) => sum + ((sub - discount) * scaled(String(t.percentage), 4) * 2n + 1_000_000n) / 2_000_000n,
    0n,
  );
  const adjustment = amountCents(fields.Adjustment ?? 0) ?? 0n;
  return {
    Sub_Total: money(sub),
    Discount: money(discount),
    Tax: money(tax),
    Adjustment: money(adjustment),
    Grand_Total: money(sub - discount + tax + adjustment),
  };
}
