/**
 * The soak's appointment CRM, behind one seam: the REST simulator (`SOAK_APPOINTMENT_CRM=rest`, the default) or an
 * improveit 360 org (classic names) on the Salesforce simulator with crm-sync pushing (`salesforce`). Traffic, faults
 * and invariants go through it, so both are soaked the same way and checked for the same facts.
 */
import type { Fault, SimServer } from '../../sim/common/sim-server.js';
import { AppointmentCrmSim } from '../../sim/appointment-crm/appointment-crm-sim.js';
import { SalesforceSim, to18 } from '../../sim/salesforce/index.js';

/** One appointment as the CRM holds it when the soak is over. */
export interface AppointmentOutcome {
  /** The bytes of each file crm-sync marked as a drawing. */
  drawingFiles: Buffer[];
  proposalFiles: number;
  /** Every sale of the appointment (the REST contract keeps one, replaced by a PUT). */
  sales: Array<{ total: number; items: Array<{ name: string; quantity: number; price: number | null }> }>;
  status: string | null;
  notes: string[];
}

/** The person whose edits the soak injects as revenue drifts (bench/soak/drifts.ts). */
export const SOAK_PERSON = 'Pat Person';

/** The share of new appointments the Salesforce org commits late, and how late at most (within the 300 s look-back). */
const LATE_COMMIT_SHARE = 0.25;
const LATE_COMMIT_MAX_MS = 20_000;

export interface SoakAppointmentCrm {
  /** What the report names. */
  readonly label: string;
  /** Where the faults are injected and counted (the data host, for Salesforce). */
  readonly server: SimServer;
  /** The path of a file upload. */
  readonly uploads: RegExp;
  /** Writes besides uploads that the adapter finds again when the CRM applies them late (a write time-out may strike them). */
  readonly lateWritesFound: RegExp[];
  /** The result crm-sync sets when a proposal is sold. */
  readonly soldValue: string;
  /** A note whose POST landed just before a replica was killed may be added again (the REST soak's documented limit). */
  readonly notesMayDoubleOnKill: boolean;
  /** The CRM's refusal for too many requests. */
  rateLimitFault(): Fault;
  /** Events of the org itself besides the HTTP faults (sessions ended, tokens rotated, commits made late), counted. */
  readonly orgEvents?: Record<string, number>;
  /** Ends every session (the org's timeout): each replica takes a new token. */
  endSessions?(): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  clearFaults(): void;
  daemonEnv(): Record<string, string>;
  /** A new appointment; `label` names it (the REST CRM takes it as the id); with a customer `Soak customer <label>`. Its id. */
  addAppointment(label: string, fields?: { status?: string; customer?: boolean }): string;
  setStatus(id: string, status: string): void;
  /** The customer edited in the CRM (the appointment changes with it). */
  editCustomer(id: string, phone: string): void;
  outcome(id: string): AppointmentOutcome;
  /** A person deletes the appointment's sale in the CRM's own screens (revenue drift injected); false when it has none. */
  personDeletesSale(id: string): boolean;
  /**
   * Who changed the appointment's part last, as the CRM shows it: its sale (the sale's own stamp where the CRM keeps
   * one) or the appointment; `crmSync` when that was crm-sync's API user; null when the part is not there.
   */
  lastModifier(id: string, part: 'sale' | 'appointment'): { who: string; crmSync: boolean } | null;
}

export function appointmentCrmOf(kind: string, random: () => number = Math.random): SoakAppointmentCrm {
  if (kind === 'rest') return new RestAppointmentCrm();
  if (kind === 'salesforce') return new SalesforceAppointmentCrm(random);
  throw new Error(`SOAK_APPOINTMENT_CRM must be rest or salesforce, not ${kind}`);
}

class RestAppointmentCrm implements SoakAppointmentCrm {
  readonly label = 'REST (docs/appointment-crm.md)';
  readonly server = new AppointmentCrmSim();
  readonly uploads = /\/files$/;
  // Not its notes: the soak has kept them out of the write time-outs since they could not be listed.
  readonly lateWritesFound: RegExp[] = [];
  readonly notesMayDoubleOnKill = true;
  readonly soldValue = 'Sold';

  rateLimitFault(): Fault {
    return { times: 1, status: 429, retryAfterSeconds: 1 };
  }
  start = async () => void (await this.server.start());
  stop = () => this.server.stop();
  clearFaults = () => this.server.clearFaults();
  daemonEnv = () => this.server.daemonEnv();

  addAppointment(label: string, fields: { status?: string; customer?: boolean } = {}): string {
    const customer = fields.customer ? { name: `Soak customer ${label}`, email: `soak-${label}@example.com` } : undefined;
    this.server.addAppointment(label, { status: fields.status, ...(customer ? { customer } : {}) } as never);
    return label;
  }

  setStatus(id: string, status: string): void {
    this.server.editAppointment(id, { status });
  }

  editCustomer(id: string, phone: string): void {
    this.server.editAppointment(id, { customer: { name: `Soak customer ${id}`, email: `soak-${id}@example.com`, phone } } as never);
  }

  outcome(id: string): AppointmentOutcome {
    const appt = this.server.get(id)!;
    const sale = appt.sale as { total: number; items: Array<{ name: string; quantity: number; price: number | null }> } | null;
    return {
      drawingFiles: appt.files.filter((f) => f.category === 'drawing').map((f) => f.bytes),
      proposalFiles: appt.files.filter((f) => f.category === 'proposal').length,
      sales: sale ? [{ total: sale.total, items: sale.items.map((i) => ({ name: i.name, quantity: i.quantity, price: i.price ?? null })) }] : [],
      status: appt.status,
      notes: appt.notes.map((n) => n.text),
    };
  }

  personDeletesSale(id: string): boolean {
    if (!this.server.get(id)?.sale) return false;
    this.server.personEdits(id, { sale: null }, SOAK_PERSON);
    return true;
  }

  lastModifier(id: string, part: 'sale' | 'appointment'): { who: string; crmSync: boolean } | null {
    const appt = this.server.get(id);
    if (!appt) return null;
    const who = (part === 'sale' ? appt.saleChanged?.updated_by : undefined) ?? appt.updated_by;
    return who ? { who, crmSync: who === this.server.apiKeyUser } : null;
  }
}

const APPOINTMENT = 'i360__Appointment__c';
const SALE = 'i360__Sale__c';
const RESULT = 'i360__Result__c';

class SalesforceAppointmentCrm implements SoakAppointmentCrm {
  readonly label = 'Salesforce (improveit 360 classic, crm-sync pushing)';
  readonly sim = new SalesforceSim();
  readonly server = this.sim.instance;
  readonly uploads = /\/sobjects\/ContentVersion$/;
  // The adapter lists the appointment's notes (SOQL on Note) before adding one again, and runs a sale's replace again
  // after a create left unanswered (composite/sobjects), its listing of older sales then holding the one that landed.
  readonly lateWritesFound = [/\/sobjects\/Note$/, /\/composite\/sobjects$/];
  readonly notesMayDoubleOnKill = false;
  /** The org's Sold value: the settings' default, one of the result pick list's values. */
  readonly soldValue = 'Sold';
  private readonly prospects = new Map<string, string>();
  private readonly commentsOf = new Map<string, string>();
  private readonly counts = { 'sessions ended': 0, 'late commits': 0 };

  /**
   * The org rotates refresh tokens (each refresh answers a new one and invalidates the old; presenting an old one
   * revokes the consent), ends every session now and then (endSessions, from the fault loop), and commits a share of
   * the new appointments the automation finds late: stamped when their save starts, visible seconds later (an
   * improveit 360 save running the package's triggers and flows), so a read may pass their stamp before they show.
   */
  constructor(private readonly random: () => number) {
    this.sim.oauth.rotateRefreshTokens = true;
    // The soak's statuses (Scheduled, Confirmed qualifying, Cancelled): this org's result pick list has them beside Sold.
    const result = this.sim.schema.field(APPOINTMENT, RESULT)!;
    const values = result.picklistValues ?? [];
    const added = ['Scheduled', 'Confirmed'].filter((v) => !values.some((p) => p.value === v)).map((value) => ({ value, label: value, active: true }));
    this.sim.schema.changeField(APPOINTMENT, RESULT, { picklistValues: [...values, ...added] });
  }

  /** What Salesforce answers when the org's API requests are spent: a 403, not a 429. */
  rateLimitFault(): Fault {
    return { times: 1, status: 403, body: [{ errorCode: 'REQUEST_LIMIT_EXCEEDED', message: 'TotalRequests Limit exceeded.' }] };
  }
  start = () => this.sim.start();
  stop = () => this.sim.stop();
  clearFaults = () => this.server.clearFaults();
  daemonEnv = () => ({ ...this.sim.daemonEnv(), APPOINTMENT_CRM_PUSHES: 'crm-sync' });

  addAppointment(label: string, fields: { status?: string; customer?: boolean } = {}): string {
    const prospect = this.sim.insertRow('i360__Prospect__c', {
      Name: `Soak customer ${label}`,
      ...(fields.customer
        ? { i360__Primary_First_Name__c: 'Soak customer', i360__Primary_Last_Name__c: label, i360__Primary_Email__c: `soak-${label}@example.com` }
        : { i360__Primary_Last_Name__c: label }),
    });
    const values = { i360__Prospect__c: prospect, [RESULT]: fields.status ?? 'Scheduled', i360__Comments__c: label };
    let id: string;
    // Only the automation's appointments commit late: crm-sync finds those by reading changes, while a person maps an
    // appointment that is already there to be seen (nobody can name a record before its save commits).
    const foundByReading = fields.customer === true;
    if (foundByReading && this.random() < LATE_COMMIT_SHARE) {
      id = this.sim.commitLate(APPOINTMENT, values, { visibleInMs: 1_000 + Math.floor(this.random() * (LATE_COMMIT_MAX_MS - 1_000)) });
      this.counts['late commits']++;
    } else {
      id = this.sim.insertRow(APPOINTMENT, values);
    }
    this.prospects.set(id, prospect);
    this.commentsOf.set(id, label);
    return id;
  }

  endSessions(): void {
    this.sim.expireTokens();
    this.counts['sessions ended']++;
  }

  /** What the org did; a rotated-out refresh token presented again (which revokes the consent) must stay at 0. */
  get orgEvents(): Record<string, number> {
    return {
      ...this.counts,
      'refresh tokens rotated': this.sim.oauth.rotations,
      'rotated-out refresh tokens presented': this.sim.oauth.reusedRefreshTokens,
    };
  }

  setStatus(id: string, status: string): void {
    this.sim.updateRow(APPOINTMENT, id, { [RESULT]: status });
  }

  editCustomer(id: string, phone: string): void {
    this.sim.updateRow('i360__Prospect__c', this.prospects.get(id)!, { i360__Phone_1__c: phone });
    // A prospect's edit leaves the appointment's SystemModstamp as it was; a rep's edit of the appointment moves it.
    // Kept here: an appointment committed late is not in the org's rows yet (the edit joins its transaction).
    const comments = `${this.commentsOf.get(id) ?? ''}/${phone}`;
    this.commentsOf.set(id, comments);
    this.sim.updateRow(APPOINTMENT, id, { i360__Comments__c: comments });
  }

  outcome(id: string): AppointmentOutcome {
    const files = this.sim.filesOf(id).map((f) => ({ bytes: f.bytes, mark: String(this.sim.row('ContentVersion', f.contentVersionId)?.Description ?? '') }));
    const appointment = to18(id);
    const sales = this.sim.rows('i360__Sale__c').filter((s) => s.i360__Appointment__c === appointment);
    const items = this.sim.rows('i360__Sale_Item__c');
    return {
      drawingFiles: files.filter((f) => f.mark === 'crm-sync category: drawing').map((f) => f.bytes),
      proposalFiles: files.filter((f) => f.mark === 'crm-sync category: proposal').length,
      sales: sales.map((s) => ({
        total: Number(s.i360__Sold_Price__c),
        items: items
          .filter((i) => i.i360__Sale__c === s.Id)
          .map((i) => ({
            name: String(i.i360__Description__c),
            quantity: Number(i.i360__Quantity__c),
            price: i.i360__Price__c === null || i.i360__Price__c === undefined ? null : Number(i.i360__Price__c),
          })),
      })),
      status: (this.sim.row(APPOINTMENT, id)?.[RESULT] as string | null) ?? null,
      notes: this.sim
        .rows('Note')
        .filter((n) => n.ParentId === appointment)
        .map((n) => String(n.Body ?? '')),
    };
  }

  personDeletesSale(id: string): boolean {
    const sale = this.saleOf(id);
    if (!sale) return false;
    this.sim.personEdits(SALE, String(sale.Id), null);
    return true;
  }

  lastModifier(id: string, part: 'sale' | 'appointment'): { who: string; crmSync: boolean } | null {
    const row = part === 'sale' ? this.saleOf(id) : this.sim.row(APPOINTMENT, id);
    const who = row?.LastModifiedById;
    return typeof who === 'string' ? { who, crmSync: to18(who) === to18(this.sim.userId) } : null;
  }

  private saleOf(id: string): Record<string, unknown> | undefined {
    const appointment = to18(id);
    return this.sim.rows(SALE).find((s) => s.i360__Appointment__c === appointment);
  }
}
