import type { MappingStatus } from '../../../src/mappings/mapping.row.js';
import type { RecordModule } from '../../../src/service-api/service-api.types.js';
import type { Harness } from '../../support/harness.js';
import { insertMapping } from '../../support/tables.js';

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
