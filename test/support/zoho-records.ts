import { Mapping, type MappingStatus } from '../../src/mappings/mapping.entity.js';
import type { RecordModule } from '../../src/service-api/service-api.types.js';
import type { Harness } from './harness.js';

/** A record mapping row as the mappings API would leave it (that API is not this module's). */
export async function mapRecord(
  h: Harness,
  projectId: string,
  recordId: string,
  module: RecordModule = 'Deals',
  status: MappingStatus = 'associated',
): Promise<void> {
  await h.database.repo(Mapping).insert({ crm: 'record', recordCrmModule: module, recordCrmRecordId: recordId, projectId, status });
}
