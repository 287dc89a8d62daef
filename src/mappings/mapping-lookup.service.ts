import { Injectable } from '@nestjs/common';
import type { RecordModule } from '../service-api/service-api.types.js';
import type { Mapping } from './mapping.row.js';
import { MappingRepository } from './mapping.repository.js';

/** Where a project's pushes go. Only associated mappings count: the service knows nothing of the others yet. */
@Injectable()
export class MappingLookupService {
  constructor(private readonly mappings: MappingRepository) {}

  /** The project's appointment mapping, whatever its state (callers decide what a pending one means). */
  appointmentOfProject(projectId: string): Promise<Mapping | null> {
    return this.mappings.findByProject('appointment', projectId);
  }

  recordOfProject(projectId: string): Promise<Mapping | null> {
    return this.mappings.findByProject('record', projectId);
  }

  record(module: RecordModule, recordId: string): Promise<Mapping | null> {
    return this.mappings.findByRecord(module, recordId);
  }

  appointment(appointmentId: string): Promise<Mapping | null> {
    return this.mappings.findByAppointment(appointmentId);
  }

  /** Which of these appointments are mapped (any state). */
  appointmentsMappedAmong(appointmentIds: string[]): Promise<Set<string>> {
    return this.mappings.findAppointmentsMappedAmong(appointmentIds);
  }

  /** Which of these records of a module are mapped (any state). */
  recordsMappedAmong(module: RecordModule, recordIds: string[]): Promise<Set<string>> {
    return this.mappings.findRecordsMappedAmong(module, recordIds);
  }
}
