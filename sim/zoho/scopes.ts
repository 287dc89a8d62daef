/**
 * Zoho's scopes as the simulator enforces them. Names are `ZohoCRM.<path>.<OPERATION>`; a granted scope holds a
 * required one when its path is the same or shorter (`ZohoCRM.modules.ALL` holds `ZohoCRM.modules.Deals.READ`) and its
 * operation is the same or ALL. The simulator's own copy of the rule, so a mistake in crm-sync's is not repeated here.
 */
const KNOWN_SCOPE =
  /^ZohoCRM\.(modules(\.(Deals|Quotes|Leads|Contacts|Accounts|Products|Price_Books|attachments|notes))?|org|users|settings(\.\w+)?|coql|bulk|notifications)\.(ALL|READ|CREATE|UPDATE|DELETE)$/;

/** What the configured (self-client) refresh token was made with: everything crm-sync could ask for. */
export const SELF_CLIENT_SCOPES = [
  'ZohoCRM.modules.ALL',
  'ZohoCRM.org.ALL',
  'ZohoCRM.users.ALL',
  'ZohoCRM.settings.ALL',
  'ZohoCRM.coql.READ',
  'ZohoCRM.notifications.ALL',
];

export const isKnownScope = (scope: string): boolean => KNOWN_SCOPE.test(scope);

export function holds(granted: string, required: string): boolean {
  const g = granted.split('.');
  const r = required.split('.');
  if (g.length > r.length) return false;
  const gOp = g.pop();
  const rOp = r.pop();
  return (gOp === 'ALL' || gOp === rOp) && g.every((part, i) => part === r[i]);
}

/**
 * Which reading of Zoho's material decides the scopes of a call. `strict`: crm-oas's JSON files and Zoho's upload
 * page (a module scope and an attachments scope, both ALL, for an upload); `yaml`: crm-oas's v8 YAML files (only the
 * operation's scope).
 */
export type ScopeReading = 'strict' | 'yaml';

export type ScopedCall =
  | { call: 'get_records' | 'get_record' | 'list_notes' | 'list_attachments' | 'upload_attachment'; module: string }
  | { call: 'search_records' | 'create_record' | 'update_record' | 'coql'; module: string }
  | { call: 'add_note' | 'org' | 'current_user' | 'fields_metadata' | 'pipelines' | 'layouts' | 'modules_metadata' | 'notifications' };

/** Every scope the call needs under the reading. */
export function requiredScopes(target: ScopedCall, reading: ScopeReading): string[] {
  const strict = reading === 'strict';
  switch (target.call) {
    case 'get_records':
    case 'get_record':
    case 'search_records':
      return [`ZohoCRM.modules.${target.module}.READ`];
    case 'list_attachments':
      return strict ? [`ZohoCRM.modules.${target.module}.READ`, 'ZohoCRM.modules.attachments.READ'] : ['ZohoCRM.modules.attachments.READ'];
    case 'upload_attachment':
      return strict ? [`ZohoCRM.modules.${target.module}.ALL`, 'ZohoCRM.modules.attachments.ALL'] : ['ZohoCRM.modules.attachments.CREATE'];
    case 'list_notes':
      return [`ZohoCRM.modules.${target.module}.READ`, 'ZohoCRM.modules.notes.READ'];
    case 'add_note':
      return strict ? ['ZohoCRM.modules.notes.ALL'] : ['ZohoCRM.modules.notes.CREATE'];
    case 'create_record':
      return [`ZohoCRM.modules.${target.module}.CREATE`];
    case 'update_record':
      return [`ZohoCRM.modules.${target.module}.UPDATE`];
    case 'fields_metadata':
      return ['ZohoCRM.settings.fields.READ'];
    case 'coql':
      // crm-oas v8.0/coql/coql.yaml: the module's READ and ZohoCRM.coql.READ.
      return [`ZohoCRM.modules.${target.module}.READ`, 'ZohoCRM.coql.READ'];
    case 'pipelines':
      // crm-oas v8.0/pipeline/pipeline.yaml, getPipelines.
      return ['ZohoCRM.settings.pipeline.READ'];
    case 'layouts':
      // crm-oas v8.0/layouts/layouts.yaml, getLayouts.
      return ['ZohoCRM.settings.layouts.READ'];
    case 'modules_metadata':
      // crm-oas v8.0/modules/modules.yaml, getModules.
      return ['ZohoCRM.settings.modules.READ'];
    case 'notifications':
      // crm-oas v8.0/notifications.json: every /actions/watch call.
      return ['ZohoCRM.notifications.ALL'];
    case 'org':
      return ['ZohoCRM.org.READ'];
    case 'current_user':
      return ['ZohoCRM.users.READ'];
  }
}

/** The required scopes none of the granted ones holds. */
export function lacking(granted: readonly string[], required: readonly string[]): string[] {
  return required.filter((r) => !granted.some((g) => holds(g, r)));
}
