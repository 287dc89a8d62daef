import type { CrmName } from '../domain/actions.js';

/** An entry's CRM target: `appointment` and an appointment id, or `record` and `Module/record id`. */
export interface CrmTarget {
  crm: CrmName;
  target: string;
}

export const targetKey = (t: CrmTarget): string => `${t.crm}:${t.target}`;
