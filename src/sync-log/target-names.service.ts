import { Injectable } from '@nestjs/common';
import type { CrmName } from '../domain/actions.js';

/** An entry's CRM target: `appointment` and an appointment id, or `record` and `Module/record id`. */
export interface CrmTarget {
  crm: CrmName;
  target: string;
}

/** Names by `targetKey`, for the targets it knows. */
export type TargetNameReader = (targets: CrmTarget[]) => Promise<Map<string, string>>;

export const targetKey = (t: CrmTarget): string => `${t.crm}:${t.target}`;

/**
 * The names of the CRM records sync log entries are about, for the screens. The names are kept on the mappings,
 * whose module is above this one: it registers how to read them (in its onModuleInit), as delivery handlers do.
 */
@Injectable()
export class TargetNamesService {
  private reader: TargetNameReader | null = null;

  register(reader: TargetNameReader): void {
    this.reader = reader;
  }

  async namesOf(entries: Array<{ crm: string | null; target: string | null }>): Promise<Map<string, string>> {
    const targets = entries.flatMap((e) => (e.target && (e.crm === 'appointment' || e.crm === 'record') ? [{ crm: e.crm as CrmName, target: e.target }] : []));
    if (!this.reader || targets.length === 0) return new Map();
    return this.reader(targets);
  }
}
