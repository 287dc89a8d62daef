import type { Customer } from '../service-api/service-api.types.js';

/** What crm-sync keeps of a project: enough to name it on screens and to match it with CRM records. */
export interface ProjectFacts {
  projectId: string;
  name: string;
  customer: { name: string | null; email: string | null; phone: string | null };
  jobNumber: string | null;
}

/** A project as an event's `data`, P4 or P5 gives it (tolerant: fields we do not use are ignored). */
export interface ProjectLike {
  id: string;
  name: string;
  customer?: Customer | null;
  job_number?: string | null;
}

export function factsOf(project: ProjectLike): ProjectFacts {
  const customer = project.customer ?? {};
  return {
    projectId: String(project.id),
    name: String(project.name ?? ''),
    customer: { name: textOrNull(customer.name), email: textOrNull(customer.email), phone: textOrNull(customer.phone) },
    jobNumber: textOrNull(project.job_number),
  };
}

function textOrNull(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}
