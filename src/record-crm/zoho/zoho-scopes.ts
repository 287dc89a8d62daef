/** The calls on a record of any of the four modules: under the stricter reading each needs the module's scope. */
const RECORD_CALLS = [
  'GET /{module}',
  'GET /{module}?ids',
  'GET /{module}/search',
  'GET /{module}/{id}',
  'GET /{module}/{id}/Attachments',
  'POST /{module}/{id}/Attachments',
  'GET /{module}/{id}/Notes',
  'POST /Notes',
] as const;

/**
 * What crm-sync asks Zoho for, one scope a line with the calls that need it (the endpoint labels of ZohoClient).
 * Zoho's material reads two ways (docs/zoho-crm.md "Scopes"): crm-oas's v8 YAML asks only the operation's scope
 * (attachments.CREATE for an upload), while its JSON files and Zoho's upload page ask the module's scope as well,
 * as `ALL`. A scope that holds under the stricter reading holds under both, so the module scopes are `ALL`.
 * Adding a call: add its label to the scopes it needs, or add a line.
 */
export const ZOHO_SCOPE_ENDPOINTS = {
  // Revenue (zoho-revenue.client.ts): a Deal or Quote read by id, the Deal updated, the Quote made and updated.
  'ZohoCRM.modules.Deals.ALL': [...RECORD_CALLS, 'GET /{module}/{id}', 'PUT /Deals/{id}'],
  'ZohoCRM.modules.Quotes.ALL': [...RECORD_CALLS, 'GET /{module}/{id}', 'POST /Quotes', 'PUT /Quotes/{id}', 'POST /coql'],
  'ZohoCRM.modules.Leads.ALL': [...RECORD_CALLS],
  'ZohoCRM.modules.Contacts.ALL': [...RECORD_CALLS],
  'ZohoCRM.modules.Products.READ': ['GET /Products/search', 'POST /coql'],
  'ZohoCRM.modules.attachments.ALL': ['GET /{module}/{id}/Attachments', 'POST /{module}/{id}/Attachments'],
  'ZohoCRM.modules.notes.ALL': ['GET /{module}/{id}/Notes', 'POST /Notes'],
  // Revenue: the Quotes' subform fields (Quoted_Items' API names and types); the Automations screen's field pickers.
  'ZohoCRM.settings.fields.READ': ['GET /settings/fields'],
  // Revenue: a Deal's pipeline and its stages (crm-oas v8.0/pipeline/pipeline.yaml); the Automations screen's Stage values.
  'ZohoCRM.settings.pipeline.READ': ['GET /settings/pipeline'],
  // The Automations screen: the Deals' layouts, whose pipelines it lists (v8.0/layouts/layouts.yaml, getLayouts).
  'ZohoCRM.settings.layouts.READ': ['GET /settings/layouts'],
  // The Automations screen: the org's labels of the modules crm-sync automates (v8.0/modules/modules.yaml, getModules).
  'ZohoCRM.settings.modules.READ': ['GET /settings/modules'],
  // Revenue: a drawing's Quote and products by Product_Code, read without search-index lag (v8.0/coql/coql.yaml).
  'ZohoCRM.coql.READ': ['POST /coql'],
  // The record CRM automation's notification channel (v8.0/notifications.json, /actions/watch: its one scope).
  'ZohoCRM.notifications.ALL': ['POST /actions/watch', 'PATCH /actions/watch', 'GET /actions/watch', 'DELETE /actions/watch'],
  // The org, and its taxes (a Quote's `$line_tax`; Zoho's Get Taxes page asks the org's scope).
  'ZohoCRM.org.READ': ['GET /org', 'GET /org/taxes'],
  'ZohoCRM.users.READ': ['GET /users?type=CurrentUser'],
} as const satisfies Record<string, readonly string[]>;

export type ZohoScope = keyof typeof ZOHO_SCOPE_ENDPOINTS;

export const ZOHO_SCOPE_LIST = Object.keys(ZOHO_SCOPE_ENDPOINTS) as ZohoScope[];

/** The `scope` of Zoho's consent URL: comma-separated. */
export const ZOHO_SCOPES = ZOHO_SCOPE_LIST.join(',');

/** How a shortfall of scopes starts, wherever it is told (readiness, the console's card, the sync log). */
export const RECONNECT_TO_GRANT = 'reconnect to grant:';

const MODULE_SCOPE = /^ZohoCRM\.modules\.(Deals|Quotes|Leads|Contacts)\./;

/** The scopes a call needs, by its endpoint label; of the four modules' scopes, only its module's when named. */
export function scopesFor(endpoint: string, module?: string): ZohoScope[] {
  return ZOHO_SCOPE_LIST.filter((scope) => {
    const ofModule = MODULE_SCOPE.exec(scope)?.[1];
    if (ofModule && module && MODULE_SCOPE.test(`ZohoCRM.modules.${module}.`) && ofModule !== module) return false;
    return (ZOHO_SCOPE_ENDPOINTS[scope] as readonly string[]).includes(endpoint);
  });
}

/**
 * Whether a granted scope holds a required one: the same, or wider by Zoho's naming (`Service.path.OPERATION`): a
 * shorter path (`ZohoCRM.modules.ALL` holds `ZohoCRM.modules.Deals.READ`) and `ALL` for any operation.
 */
export function scopeHolds(granted: string, required: string): boolean {
  const g = granted.split('.');
  const r = required.split('.');
  if (g.length < 2 || r.length < 2 || g.length > r.length) return false;
  const [gOperation, rOperation] = [g.pop()!.toUpperCase(), r.pop()!.toUpperCase()];
  if (gOperation !== 'ALL' && gOperation !== rOperation) return false;
  return g.every((part, i) => part.toLowerCase() === r[i].toLowerCase());
}

/** The scopes crm-sync needs that none of `granted` holds. */
export function missingScopes(granted: readonly string[]): ZohoScope[] {
  return ZOHO_SCOPE_LIST.filter((required) => !granted.some((g) => scopeHolds(g, required)));
}

/** Zoho's token answers separate scopes with spaces (its docs) or commas (its consent URL): both are read. */
export function parseGrantedScopes(value: unknown): string[] | null {
  if (typeof value !== 'string') return null;
  return value.split(/[\s,]+/).filter(Boolean);
}
