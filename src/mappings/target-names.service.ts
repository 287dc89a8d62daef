import { Injectable } from '@nestjs/common';
import type { CrmName } from '../domain/actions.js';
import { MappingRepository } from './mapping.repository.js';

/** The names of the CRM records sync log entries are about, for the screens: the names kept on the mappings. */
@Injectable()
export class TargetNamesService {
  constructor(private readonly mappings: MappingRepository) {}

  async namesOf(entries: Array<{ crm: string | null; target: string | null }>): Promise<Map<string, string>> {
    const targets = entries.flatMap((e) => (e.target && (e.crm === 'appointment' || e.crm === 'record') ? [{ crm: e.crm as CrmName, target: e.target }] : []));
    if (targets.length === 0) return new Map();
    return this.mappings.recordNamesOf(targets);
  }
}
