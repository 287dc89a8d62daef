import { RECORD_CRM_DEFAULTS } from '../../src/crm-settings/automation-settings.js';
import type { MappingStatus } from '../../src/mappings/mapping.row.js';
import type { RecordModule } from '../../src/service-api/service-api.types.js';
import type { Harness } from './harness.js';
import { insertMapping } from './tables.js';

/** A record mapping row as the mappings API would leave it (that API is not this module's). */
export async function mapRecord(
  h: Harness,
  projectId: string,
  recordId: string,
  module: RecordModule = 'Deals',
  status: MappingStatus = 'associated',
): Promise<void> {
  await insertMapping(h, { crm: 'record', recordCrmModule: module, recordCrmRecordId: recordId, projectId, status });
}

/**
 * A project with one drawing and a Deal mapped to it, Quote line items on (the fallback product made): what a push of
 * the drawing's Quote needs.
 */
export async function dealReadyForQuotes(h: Harness, accountId: string): Promise<{ projectId: string; drawingId: string; dealId: string }> {
  const project = h.service.addProject();
  const drawing = h.service.addDrawing(project.id);
  const dealId = h.zoho!.addRecord('Deals', undefined, {
    Deal_Name: `Deal of ${project.name}`,
    Stage: 'Qualification',
    Account_Name: { id: accountId, name: 'Acme' },
  });
  await mapRecord(h, project.id, dealId, 'Deals');
  const saved = await h.admin('/api/automations/record-crm', {
    method: 'PUT',
    json: { ...RECORD_CRM_DEFAULTS, quote_line_items: true, fallback_product_id: h.zoho!.revenue.addProduct('Services', 'SERVICES') },
  });
  if (saved.status !== 200) throw new Error(`saving the record CRM's automations answered ${saved.status}`);
  return { projectId: project.id, drawingId: drawing.id, dealId };
}
