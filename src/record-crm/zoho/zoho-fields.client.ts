import { Injectable } from '@nestjs/common';
import { isJsonObject, optionalIdString } from '../../http/exact-json.js';
import { RECORD_MODULES, type RecordModule } from '../../service-api/service-api.types.js';
import { ZohoClient } from './zoho.client.js';

/** A field of a Zoho module as the settings' pickers offer it; `pick_list` for a pick list, else null. */
export interface ZohoFieldView {
  api_name: string;
  label: string;
  data_type: string;
  pick_list: Array<{ value: string; label: string }> | null;
}

/** One of the modules crm-sync automates, as this org names it; `in_org` false when Zoho does not list it (or not for the API). */
export interface ZohoModuleView {
  api_name: RecordModule;
  label: string;
  in_org: boolean;
}

/** A layout of a module (its pipelines hang on it for Deals). */
export interface ZohoLayoutView {
  id: string;
  name: string;
}

const CACHE_MS = 60_000;
/** The modules' web names change only when an admin renames a module: links may use a read this old. */
const WEB_NAMES_MS = 10 * 60_000;

/**
 * What the Automations screen's pickers read of Zoho's settings, each kept a minute: a module's fields
 * (`GET /crm/v8/settings/fields?module=`, crm-oas v8 fields.yaml: `fields[]` with `api_name`, `field_label`,
 * `data_type`, `pick_list_values[]` of `actual_value` and `display_value`; scope ZohoCRM.settings.fields.READ), the
 * org's modules and a module's layouts (below). The Deals' pipelines are ZohoRevenueClient.pipelines.
 */
@Injectable()
export class ZohoFieldsClient {
  private readonly cache = new Map<RecordModule, { fields: ZohoFieldView[]; at: number }>();

  private modulesKept: { modules: ZohoModuleView[]; webNames: Map<RecordModule, string>; at: number } | null = null;
  private readonly layoutsKept = new Map<RecordModule, { layouts: ZohoLayoutView[]; at: number }>();

  constructor(private readonly zoho: ZohoClient) {}

  /**
   * The modules crm-sync automates (its four: its scopes, mappings and record reads are per module), each by the label
   * this org gives it, from `GET /settings/modules` (crm-oas v8.0/modules/modules.yaml, getModules: `modules[]` with
   * `api_name`, `plural_label`, `api_supported`; scope ZohoCRM.settings.modules.READ); kept a minute. A module the
   * org lacks, or does not open to the API, is listed with `in_org: false`.
   */
  async modules(): Promise<ZohoModuleView[]> {
    return (await this.readModules(CACHE_MS)).modules;
  }

  /**
   * Each module's name in Zoho's web addresses: its `module_name` (getModules), which is not always its API name
   * (Zoho's Modules API page: the Events module's is Meetings; a standard org's Deals are Potentials). A record opens
   * at `/crm/org<org id>/tab/<module_name>/<id>` (docs/zoho-crm.md, "Links to records"); a module Zoho names no
   * `module_name` for keeps its API name. Read with the modules, kept 10 minutes.
   */
  async webNames(): Promise<Map<RecordModule, string>> {
    return (await this.readModules(WEB_NAMES_MS)).webNames;
  }

  private async readModules(maxAgeMs: number): Promise<{ modules: ZohoModuleView[]; webNames: Map<RecordModule, string> }> {
    if (this.modulesKept && Date.now() - this.modulesKept.at < maxAgeMs) return this.modulesKept;
    const { data } = await this.zoho.request<unknown>({ endpoint: 'GET /settings/modules', method: 'GET', path: '/settings/modules' });
    const listed = isJsonObject(data) && Array.isArray(data.modules) ? data.modules.filter(isJsonObject) : [];
    const modules = RECORD_MODULES.map((apiName): ZohoModuleView => {
      const found = listed.find((m) => m.api_name === apiName);
      const label = found && typeof found.plural_label === 'string' && found.plural_label !== '' ? found.plural_label : apiName;
      return { api_name: apiName, label, in_org: found !== undefined && found.api_supported !== false };
    });
    const webNames = new Map(
      RECORD_MODULES.map((apiName): [RecordModule, string] => {
        const name = listed.find((m) => m.api_name === apiName)?.module_name;
        return [apiName, typeof name === 'string' && /^\w+$/.test(name) ? name : apiName];
      }),
    );
    this.modulesKept = { modules, webNames, at: Date.now() };
    return this.modulesKept;
  }

  /**
   * A module's layouts (`GET /settings/layouts?module=`, crm-oas v8.0/layouts/layouts.yaml, getLayouts: `layouts[]`
   * with `id`, `display_label`, `name`, `status`, `visible`; scope ZohoCRM.settings.layouts.READ): only the layouts
   * people can use, `status: active` and not `visible: false` (getLayouts also answers `inactive`, `downgraded` and
   * `hidden` ones; a layout naming no status is taken as active); kept a minute. For Deals, each layout has its own
   * pipelines.
   */
  async layouts(module: RecordModule): Promise<ZohoLayoutView[]> {
    const kept = this.layoutsKept.get(module);
    if (kept && Date.now() - kept.at < CACHE_MS) return kept.layouts;
    const { data } = await this.zoho.request<unknown>({ endpoint: 'GET /settings/layouts', method: 'GET', path: '/settings/layouts', params: { module } });
    const raw = isJsonObject(data) && Array.isArray(data.layouts) ? data.layouts.filter(isJsonObject) : [];
    const layouts = raw.flatMap((l): ZohoLayoutView[] => {
      const id = typeof l.id === 'string' || typeof l.id === 'number' ? optionalIdString(l.id) : null;
      if (!id || !usable(l)) return [];
      const name = typeof l.display_label === 'string' ? l.display_label : typeof l.name === 'string' ? l.name : id;
      return [{ id, name }];
    });
    this.layoutsKept.set(module, { layouts, at: Date.now() });
    return layouts;
  }

  async fields(module: RecordModule): Promise<ZohoFieldView[]> {
    const kept = this.cache.get(module);
    if (kept && Date.now() - kept.at < CACHE_MS) return kept.fields;
    const { data } = await this.zoho.request<unknown>({ endpoint: 'GET /settings/fields', method: 'GET', path: '/settings/fields', params: { module } });
    const raw = isJsonObject(data) && Array.isArray(data.fields) ? data.fields : [];
    const fields = raw.filter(isJsonObject).flatMap((f): ZohoFieldView[] => {
      if (typeof f.api_name !== 'string' || f.api_name === '') return [];
      const label = typeof f.field_label === 'string' ? f.field_label : typeof f.display_label === 'string' ? f.display_label : f.api_name;
      const picks = Array.isArray(f.pick_list_values) ? f.pick_list_values.filter(isJsonObject) : null;
      const pickList = picks
        ? picks.flatMap((p) => {
            const value = typeof p.actual_value === 'string' ? p.actual_value : typeof p.display_value === 'string' ? p.display_value : null;
            return value === null ? [] : [{ value, label: typeof p.display_value === 'string' ? p.display_value : value }];
          })
        : null;
      return [{ api_name: f.api_name, label, data_type: typeof f.data_type === 'string' ? f.data_type : 'text', pick_list: pickList }];
    });
    this.cache.set(module, { fields, at: Date.now() });
    return fields;
  }
}

/** A layout people can use: active (when it says) and not hidden from them. */
function usable(layout: Record<string, unknown>): boolean {
  return (layout.status === undefined || layout.status === 'active') && layout.visible !== false;
}
