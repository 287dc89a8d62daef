import { Injectable } from '@nestjs/common';
import { isJsonObject } from '../../http/exact-json.js';
import type { RecordModule } from '../../service-api/service-api.types.js';
import { ZohoClient } from './zoho.client.js';

/** A field of a Zoho module as the settings' pickers offer it; `pick_list` for a pick list, else null. */
export interface ZohoFieldView {
  api_name: string;
  label: string;
  data_type: string;
  pick_list: Array<{ value: string; label: string }> | null;
}

const CACHE_MS = 60_000;

/**
 * A module's fields (`GET /crm/v8/settings/fields?module=`, crm-oas v8 fields.yaml: `fields[]` with `api_name`,
 * `field_label`, `data_type`, `pick_list_values[]` of `actual_value` and `display_value`; scope
 * ZohoCRM.settings.fields.READ), for the Automations screen's pickers; kept a minute per module.
 */
@Injectable()
export class ZohoFieldsClient {
  private readonly cache = new Map<RecordModule, { fields: ZohoFieldView[]; at: number }>();

  constructor(private readonly zoho: ZohoClient) {}

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
