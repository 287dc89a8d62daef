import { Inject, Injectable } from '@nestjs/common';
import {
  APPOINTMENT_CRM,
  AppointmentNotFoundError,
  type Appointment,
  type AppointmentCrm,
  type AppointmentDetails,
  type AppointmentSearch,
} from '../appointment-crm/appointment-crm.js';
import type { MatchKey } from '../crm-settings/automation-settings.js';
import { MappingLookupService } from '../mappings/mapping-lookup.service.js';
import { ProjectsService } from '../projects/projects.service.js';
import { RECORD_CRM, recordNameOf, type RecordCrm, type RecordSearch, type ZohoRecord } from '../record-crm/record-crm.js';
import type { RecordModule } from '../service-api/service-api.types.js';
import { comparable, matchedKeys, namesAlike, type MatchValues, type RecordValues } from './match-keys.js';
import type { Candidate } from './suggestion.row.js';

/** The Contacts with a project's e-mail or phone whose Deals (or Quotes) are looked for: a few, not a whole family. */
const CONTACTS_FOLLOWED = 3;

/**
 * The primary fields of a Contact or a Lead, the only ones matched: `Secondary_Email`, `Home_Phone`, `Other_Phone`,
 * `Asst_Phone` hold someone else's as often as the customer's (an assistant, a spouse). The API names are Zoho's
 * standard fields of Contacts and Leads (zoho/crm-oas v8, `modules/Contacts`, `modules/Leads`).
 */
const PRIMARY_EMAIL_FIELDS = ['Email'];
const PRIMARY_PHONE_FIELDS = ['Phone', 'Mobile'];
const PERSON_FIELDS = ['Full_Name', 'First_Name', 'Last_Name', ...PRIMARY_EMAIL_FIELDS, ...PRIMARY_PHONE_FIELDS];

/** The stage field of a Deal or a Quote: only open ones are candidates (a closed sale is another job of the customer). */
const STAGE_FIELD: Partial<Record<RecordModule, string>> = { Deals: 'Stage', Quotes: 'Quote_Stage' };

/** What the project brings to a look: its values, its customer's name, and which of its values other projects hold too. */
export interface ProjectSide {
  projectId: string;
  values: MatchValues;
  customerName: string | null;
}

/** A record found, with what it offers to the match. */
interface Found {
  candidate: Omit<Candidate, 'matched_on' | 'shared_on' | 'names_alike'>;
  values: RecordValues;
}

/**
 * Looks in a CRM for the records of a project: one search per key, and only the records whose primary values are the
 * project's once compared (a CRM's search may match parts), not mapped to a project already. Each candidate says on
 * which keys it matched, which of those another project or another record holds as well, and whether the names are
 * alike: what decides whether it may be mapped without review (match-keys.ts `isStrong`).
 */
@Injectable()
export class CandidateSearchService {
  constructor(
    @Inject(APPOINTMENT_CRM) private readonly appointmentCrm: AppointmentCrm,
    @Inject(RECORD_CRM) private readonly recordCrm: RecordCrm,
    private readonly lookup: MappingLookupService,
    private readonly projects: ProjectsService,
  ) {}

  async appointments(keys: MatchKey[], project: ProjectSide): Promise<Candidate[]> {
    const perKey = new Map<MatchKey, Found[]>();
    for (const key of keys) {
      const wanted = comparable(key, project.values[key]);
      if (wanted === null) continue;
      const query: AppointmentSearch =
        key === 'job_number' ? { job_number: project.values.job_number! } : key === 'email' ? { email: project.values.email! } : { phone: wanted };
      const found = (await this.appointmentCrm.searchAppointments(query)).map(appointmentFound);
      perKey.set(
        key,
        found.filter((f) => matchedKeys([key], project.values, f.values).length > 0),
      );
    }
    const candidates = await this.judge(keys, project, perKey, new Map());
    const mapped = await this.lookup.appointmentsMappedAmong(candidates.map((c) => c.id));
    return candidates.filter((c) => !mapped.has(c.id));
  }

  /**
   * `jobNumberField`: the Zoho field holding the job number (`match_fields.job_number`); without it, no job number
   * search. A Deal or a Quote has no e-mail or phone of its own: those keys find the Contacts first, then their open
   * Deals or Quotes (Contact_Name one of them).
   */
  async records(module: RecordModule, jobNumberField: string | undefined, keys: MatchKey[], project: ProjectSide): Promise<Candidate[]> {
    const perKey = new Map<MatchKey, Found[]>();
    /** How many people (Contacts) hold each key's value, for Deals and Quotes: two people, one value, is a shared value. */
    const people = new Map<MatchKey, number>();
    const byPerson = module === 'Deals' || module === 'Quotes';
    for (const key of keys) {
      const wanted = comparable(key, project.values[key]);
      if (wanted === null || (key === 'job_number' && !jobNumberField)) continue;
      if (key === 'job_number') {
        const records = await this.recordCrm.searchRecords(module, { field: jobNumberField!, equals: project.values.job_number! });
        const found = await Promise.all(records.map((r) => this.recordFound(module, r, jobNumberField)));
        perKey.set(
          key,
          found.filter((f): f is Found => f !== null && matchedKeys([key], project.values, f.values).length > 0),
        );
        continue;
      }
      const query: RecordSearch = key === 'email' ? { email: project.values.email! } : { phone: wanted };
      const persons = (await this.recordCrm.searchRecords(byPerson ? 'Contacts' : module, query)).filter(
        (record) => matchedKeys([key], project.values, personValues(record, null)).length > 0,
      );
      if (!byPerson) {
        perKey.set(
          key,
          persons.map((record) => ({
            candidate: { id: record.id, module, name: recordNameOf(record) },
            values: personValues(record, text(record[jobNumberField ?? ''])),
          })),
        );
        continue;
      }
      people.set(key, persons.length);
      const found: Found[] = [];
      for (const contact of persons.slice(0, CONTACTS_FOLLOWED)) {
        for (const record of await this.recordCrm.searchRecords(module, { field: 'Contact_Name', equals: contact.id })) {
          if (lookupId(record.Contact_Name) === contact.id && isOpen(module, record)) {
            found.push({ candidate: { id: record.id, module, name: recordNameOf(record) }, values: personValues(contact, text(record[jobNumberField ?? ''])) });
          }
        }
      }
      perKey.set(key, found);
    }
    const candidates = await this.judge(keys, project, perKey, people);
    const mapped = await this.lookup.recordsMappedAmong(
      module,
      candidates.map((c) => c.id),
    );
    return candidates.filter((c) => !mapped.has(c.id));
  }

  /** The appointment's values as the appointment CRM has them now; null when it is gone. */
  async appointmentNow(appointmentId: string): Promise<RecordValues | null> {
    try {
      return appointmentValues(await this.appointmentCrm.getAppointment(appointmentId));
    } catch (err) {
      if (err instanceof AppointmentNotFoundError) return null;
      throw err;
    }
  }

  /** The record's values as Zoho has them now (a Deal's or Quote's from its Contact); null when it is gone or closed. */
  async recordNow(module: RecordModule, recordId: string, jobNumberField: string | undefined): Promise<RecordValues | null> {
    const fields = module === 'Deals' || module === 'Quotes' ? ['Contact_Name', STAGE_FIELD[module]!] : PERSON_FIELDS;
    const [record] = await this.recordCrm.getRecordsByIds(module, [recordId], jobNumberField ? [...fields, jobNumberField] : fields);
    if (!record) return null;
    return (await this.recordFound(module, record, jobNumberField))?.values ?? null;
  }

  /** Which of the project's values another project crm-sync knows holds as well. */
  sharedWithProjects(project: ProjectSide, keys: MatchKey[]): Promise<Set<MatchKey>> {
    return this.projects.keysHeldByOthers(project.projectId, Object.fromEntries(keys.map((key) => [key, comparable(key, project.values[key])])));
  }

  /** A record found by the job number search: a person's values, or a Deal's or Quote's (open only) through its Contact. */
  private async recordFound(module: RecordModule, record: ZohoRecord, jobNumberField: string | undefined): Promise<Found | null> {
    const candidate = { id: record.id, module, name: recordNameOf(record) };
    const jobNumber = jobNumberField ? text(record[jobNumberField]) : null;
    if (module !== 'Deals' && module !== 'Quotes') return { candidate, values: personValues(record, jobNumber) };
    if (!isOpen(module, record)) return null;
    const contactId = lookupId(record.Contact_Name);
    const [contact] = contactId ? await this.recordCrm.getRecordsByIds('Contacts', [contactId], PERSON_FIELDS) : [];
    return {
      candidate,
      values: contact ? personValues(contact, jobNumber) : { job_number: jobNumber, emails: [], phones: [], name: lookupName(record.Contact_Name) },
    };
  }

  /** Candidates from what each key's search found: each with the keys it matched on, those shared, and the names' likeness. */
  private async judge(keys: MatchKey[], project: ProjectSide, perKey: Map<MatchKey, Found[]>, people: Map<MatchKey, number>): Promise<Candidate[]> {
    const byId = new Map<string, Found>();
    for (const found of perKey.values()) for (const f of found) if (!byId.has(f.candidate.id)) byId.set(f.candidate.id, f);
    const sharedByRecords = new Set<MatchKey>(
      [...perKey].filter(([key, found]) => new Set(found.map((f) => f.candidate.id)).size > 1 || (people.get(key) ?? 0) > 1).map(([key]) => key),
    );
    const sharedByProjects = byId.size > 0 ? await this.sharedWithProjects(project, keys) : new Set<MatchKey>();
    return [...byId.values()].map(({ candidate, values }) => {
      const matched = matchedKeys(keys, project.values, values);
      return {
        ...candidate,
        matched_on: matched,
        shared_on: matched.filter((key) => sharedByRecords.has(key) || sharedByProjects.has(key)),
        names_alike: namesAlike(project.customerName, values.name),
      };
    });
  }
}

function appointmentFound(a: AppointmentDetails): Found {
  return {
    candidate: { id: a.id, module: null, name: a.customer?.name ?? null, ...(a.web_url ? { web_url: a.web_url } : {}) },
    values: { job_number: a.job_number, emails: [a.customer?.email ?? null], phones: [a.customer?.phone ?? null], name: a.customer?.name ?? null },
  };
}

/** An appointment as `GET /appointments/:id` gives it (the listing's fields): read tolerantly, a field missing is null. */
function appointmentValues(a: Appointment): RecordValues {
  const customer = a.customer && typeof a.customer === 'object' ? (a.customer as Record<string, unknown>) : {};
  return { job_number: text(a.job_number), emails: [text(customer.email)], phones: [text(customer.phone)], name: text(customer.name) };
}

function personValues(record: ZohoRecord, jobNumber: string | null): RecordValues {
  const fullName = text(record.Full_Name) ?? ([text(record.First_Name), text(record.Last_Name)].filter(Boolean).join(' ') || null);
  return {
    job_number: jobNumber,
    emails: PRIMARY_EMAIL_FIELDS.map((field) => text(record[field])),
    phones: PRIMARY_PHONE_FIELDS.map((field) => text(record[field])),
    name: fullName,
  };
}

/**
 * Whether a Deal or a Quote is still open: its stage is not a closed one. Zoho's standard closing stages begin with
 * "Closed" (`Closed Won`, `Closed Lost`, `Closed-Lost to Competition`; Quotes: `Closed Won`, `Closed Lost`); a record
 * without a stage is taken as open.
 */
function isOpen(module: RecordModule, record: ZohoRecord): boolean {
  const field = STAGE_FIELD[module];
  const stage = field ? text(record[field]) : null;
  return stage === null || !/^\s*closed\b/i.test(stage);
}

/** The id of a lookup field's value (`{ id, name }`). */
function lookupId(value: unknown): string | null {
  return value && typeof value === 'object' && 'id' in value ? String((value as { id: unknown }).id) : null;
}

function lookupName(value: unknown): string | null {
  return value && typeof value === 'object' && 'name' in value ? text((value as { name: unknown }).name) : null;
}

function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
}
