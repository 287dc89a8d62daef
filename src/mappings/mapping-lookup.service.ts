import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { RecordModule } from '../service-api/service-api.types.js';
import { Mapping } from './mapping.entity.js';

/** Where a project's pushes go. Only associated mappings count: the service knows nothing of the others yet. */
@Injectable()
export class MappingLookup {
  constructor(private readonly database: DatabaseService) {}

  /** The project's appointment mapping, whatever its state (callers decide what a pending one means). */
  appointmentOfProject(projectId: string): Promise<Mapping | null> {
    return this.database.repo(Mapping).findOneBy({ crm: 'appointment', projectId });
  }

  recordOfProject(projectId: string): Promise<Mapping | null> {
    return this.database.repo(Mapping).findOneBy({ crm: 'record', projectId });
  }

  record(module: RecordModule, recordId: string): Promise<Mapping | null> {
    return this.database.repo(Mapping).findOneBy({ crm: 'record', recordCrmModule: module, recordCrmRecordId: recordId });
  }

  appointment(appointmentId: string): Promise<Mapping | null> {
    return this.database.repo(Mapping).findOneBy({ crm: 'appointment', appointmentId });
  }
}
