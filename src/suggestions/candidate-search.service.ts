import { Inject, Injectable } from '@nestjs/common';
import { APPOINTMENT_CRM, type AppointmentCrm, type AppointmentSearch } from '../appointment-crm/appointment-crm.js';
import type { MatchKey } from '../crm-settings/automation-settings.js';
import { MappingLookupService } from '../mappings/mapping-lookup.service.js';
import { RECORD_CRM, recordNameOf, type RecordCrm, type RecordSearch, type ZohoRecord } from '../record-crm/record-crm.js';
import type { RecordModule } from '../service-api/service-api.types.js';
import { comparable, type MatchValues } from './match-keys.js';
import type { Candidate } from './suggestion.row.js';

/** The Contacts with a project's e-mail or phone whose Deals (or Quotes) are looked for: a few, not a whole family. */
const CONTACTS_FOLLOWED = 3;

/**
 * Looks in a CRM for the records of a project: one search per key, and only the records whose value is the project's
 * once compared (a CRM's search may match parts, as Zoho's `equals` does), not mapped to a project already.
 */
@Injectable()
export class CandidateSearchService {
  constructor(
    @Inject(APPOINTMENT_CRM) private readonly appointmentCrm: AppointmentCrm,
    @Inject(RECORD_CRM) private readonly recordCrm: RecordCrm,
    private readonly lookup: MappingLookupService,
  ) {}

  async appointments(keys: MatchKey[], values: MatchValues): Promise<Candidate[]> {
    const found = new Map<string, Candidate>();
    for (const key of keys) {
      const wanted = comparable(key, values[key]);
      if (wanted === null) continue;
      const query: AppointmentSearch =
        key === 'job_number' ? { job_number: values.job_number! } : key === 'email' ? { email: values.email! } : { phone: wanted };
      for (const a of await this.appointmentCrm.searchAppointments(query)) {
        const theirs = key === 'job_number' ? a.job_number : key === 'email' ? a.customer?.email : a.customer?.phone;
        if (comparable(key, theirs) === wanted)
          add(found, { id: a.id, module: null, name: a.customer?.name ?? null, ...(a.web_url ? { web_url: a.web_url } : {}) }, key);
      }
    }
    const mapped = await this.lookup.appointmentsMappedAmong([...found.keys()]);
    return [...found.values()].filter((c) => !mapped.has(c.id));
  }

  /**
   * `jobNumberField`: the Zoho field holding the job number (`match_fields.job_number`); without it, no job number
   * search. A Deal or a Quote has no e-mail or phone of its own: those keys find the Contacts first, then the Deals or
   * Quotes whose Contact_Name is one of them.
   */
  async records(module: RecordModule, jobNumberField: string | undefined, keys: MatchKey[], values: MatchValues): Promise<Candidate[]> {
    const found = new Map<string, Candidate>();
    for (const key of keys) {
      const wanted = comparable(key, values[key]);
      if (wanted === null || (key === 'job_number' && !jobNumberField)) continue;
      if (key === 'job_number') {
        for (const record of await this.recordCrm.searchRecords(module, { field: jobNumberField!, equals: values.job_number! })) {
          if (comparable(key, text(record[jobNumberField!])) === wanted) add(found, { id: record.id, module, name: recordNameOf(record) }, key);
        }
        continue;
      }
      const query: RecordSearch = key === 'email' ? { email: values.email! } : { phone: wanted };
      const byPerson = module === 'Deals' || module === 'Quotes';
      const people = (await this.recordCrm.searchRecords(byPerson ? 'Contacts' : module, query)).filter((record) =>
        fieldsNamed(record, key === 'email' ? /email/i : /phone|mobile/i).some((value) => comparable(key, value) === wanted),
      );
      if (!byPerson) {
        for (const record of people) add(found, { id: record.id, module, name: recordNameOf(record) }, key);
        continue;
      }
      for (const contact of people.slice(0, CONTACTS_FOLLOWED)) {
        for (const record of await this.recordCrm.searchRecords(module, { field: 'Contact_Name', equals: contact.id })) {
          if (lookupId(record.Contact_Name) === contact.id) add(found, { id: record.id, module, name: recordNameOf(record) }, key);
        }
      }
    }
    const mapped = await this.lookup.recordsMappedAmong(module, [...found.keys()]);
    return [...found.values()].filter((c) => !mapped.has(c.id));
  }
}

/** The id of a lookup field's value (`{ id, name }`). */
function lookupId(value: unknown): string | null {
  return value && typeof value === 'object' && 'id' in value ? String((value as { id: unknown }).id) : null;
}

function add(found: Map<string, Candidate>, record: Omit<Candidate, 'matched_on'>, key: MatchKey): void {
  const known = found.get(record.id);
  if (known) {
    if (!known.matched_on.includes(key)) known.matched_on.push(key);
  } else found.set(record.id, { ...record, matched_on: [key] });
}

function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
}

function fieldsNamed(record: ZohoRecord, name: RegExp): Array<string | null> {
  return Object.entries(record)
    .filter(([field]) => name.test(field))
    .map(([, value]) => text(value));
}
