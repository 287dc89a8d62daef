/** The soak's traffic: mapping imports, drawing events, export prompts, approvals, payments, the CRMs' own edits, admin retries. */
import { toJson } from '../../sim/common/sim-server.js';
import { appointmentPrompt, events, recordPrompt } from '../../sim/service/index.js';
import {
  MAX_AUTOMATED,
  MAX_PROJECTS,
  QUALIFYING_STAGE,
  QUALIFYING_STATUS,
  SECRETS,
  SoakProject,
  addDrawing,
  admin,
  appointmentCrm,
  automated,
  chance,
  dealMapped,
  delivered,
  now,
  pick,
  projects,
  query,
  random,
  replicas,
  sender,
  sends,
  service,
  sleep,
  state,
  stats,
  zoho,
} from './world.js';
// ---- traffic --------------------------------------------------------------------------------------------------------

/** Sends a webhook as the service does (its retry schedule, time compressed) to one replica, without waiting. */
export function deliver(path: string, body: object, secret: string, project: SoakProject, onDelivered?: (raw: string) => void): void {
  const raw = toJson(body);
  const replica = pick(replicas);
  stats.webhooks++;
  project.sending++;
  const sending = sender.send(`${replica.url}${path}`, raw, { secret }).then((result) => {
    project.sending--;
    stats.attempts += result.attempts.length;
    if (!result.delivered) {
      stats.undelivered++;
      project.gaveUp = true;
      return;
    }
    stats.delivered++;
    delivered.push({ path, raw });
    onDelivered?.(raw);
  });
  sends.add(sending);
  void sending.finally(() => sends.delete(sending));
}

/** New projects of the service, mapped by a CSV import through the admin API, then associated; their first drawings sent. */
export async function mapProjects(count: number): Promise<void> {
  const fresh: SoakProject[] = [];
  for (let i = 0; i < count && projects.length + fresh.length < MAX_PROJECTS; i++) {
    const project = service.addProject({ name: `Soak project ${++state.counter}` });
    const soak: SoakProject = {
      id: project.id,
      crm: chance(0.5) ? 'appointment' : 'record',
      drawings: [],
      proposals: [],
      exportedYes: false,
      recordExports: new Set(),
      exportedDrawings: new Set(),
      sending: 0,
      gaveUp: false,
      drifted: false,
    };
    if (soak.crm === 'appointment') {
      soak.appointmentId = appointmentCrm.addAppointment(`APT-${state.counter}`);
    } else {
      soak.module = pick(['Deals', 'Quotes'] as const);
      // Zoho requires a Quote's Account_Name: a Deal's Quote takes the Deal's.
      const dealFields = {
        Deal_Name: `Soak deal ${state.counter}`,
        Stage: 'Qualification',
        Account_Name: { id: `4150868000000${100000 + state.counter}`, name: 'Soak account' },
      };
      soak.recordId = zoho.addRecord(soak.module, undefined, soak.module === 'Deals' ? dealFields : {});
    }
    soak.drawings.push(addDrawing(soak, `Plan ${state.counter}`).id);
    fresh.push(soak);
  }
  if (fresh.length === 0) return;
  const rows = fresh.map((p) => (p.crm === 'appointment' ? `appointment,${p.appointmentId},,,${p.id}` : `record,,${p.module},${p.recordId},${p.id}`));
  const csv = ['crm,appointment_id,record_crm_module,record_crm_record_id,project_id', ...rows].join('\n');
  const result = await admin<{ created: number }>('/api/mappings/import', { body: csv, type: 'text/csv' });
  if (result.created !== fresh.length) throw new Error(`mapping import created ${result.created} of ${fresh.length}`);
  projects.push(...fresh);
  await admin('/api/mappings/associate', { body: '{}' });
  for (const p of fresh) deliver('/webhooks/events', events.drawingCreated(service.drawingView(p.drawings[0])), SECRETS.events, p);
}

/** The projects traffic goes on with: not those a person's edit was injected into (their traffic is over). */
const open = () => projects.filter((p) => !p.drifted);

export function uploadDrawing(): void {
  const p = pick(open());
  if (p.drawings.length < 3 && chance(0.4)) {
    const drawing = addDrawing(p, `Plan ${++state.counter}`);
    p.drawings.push(drawing.id);
    deliver('/webhooks/events', events.drawingCreated(service.drawingView(drawing.id)), SECRETS.events, p);
  } else {
    const drawing = service.updateDrawing(pick(p.drawings));
    deliver('/webhooks/events', events.drawingUpdated(service.drawingView(drawing.id)), SECRETS.events, p);
  }
}

export function exportPrompt(): void {
  const p = pick(open());
  const drawingId = pick(p.drawings);
  const yes = chance(0.6);
  if (p.crm === 'appointment') {
    const body = appointmentPrompt({ project_id: p.id, drawing_id: drawingId, appointment_id: p.appointmentId!, yes_no: yes });
    deliver('/webhooks/appointment-crm/export-prompt', body, SECRETS.appointment, p, () => {
      p.exportedYes ||= yes;
      if (yes) p.exportedDrawings.add(drawingId);
    });
  } else {
    const body = recordPrompt({ drawing_id: drawingId, record_crm_module: p.module!, record_crm_record_id: p.recordId!, yes_no: yes });
    deliver('/webhooks/record-crm/export-prompt', body, SECRETS.record, p, (raw) => {
      if (!yes) return;
      p.recordExports.add(raw);
      p.exportedDrawings.add(drawingId);
    });
  }
}

export function approve(): void {
  // Deal-mapped projects are a quarter of them: picked more often, so that some Deals and Quotes are approved.
  const dealsWaiting = open().filter((p) => dealMapped(p) && p.proposals.length === 0);
  const p = dealsWaiting.length > 0 && chance(0.3) ? pick(dealsWaiting) : pick(open());
  if (p.proposals.length >= 2) return;
  if (chance(0.2)) {
    const pending = service.addProposal({ project_id: p.id, status: 'PENDING' });
    deliver('/webhooks/events', events.proposalStatusChanged(pending), SECRETS.events, p);
    return;
  }
  // A Deal holds one Amount: one approval per Deal-mapped project, so the Amount it must end with is known.
  if (dealMapped(p) && p.proposals.length > 0) return;
  const proposal = service.addProposal({ project_id: p.id, status: 'APPROVED', approved_option: { drawing_id: pick(p.drawings) } });
  p.proposals.push(proposal);
  const body = events.proposalStatusChanged(proposal);
  deliver('/webhooks/events', body, SECRETS.events, p);
  // Re-delivered: the deprecated event of the same approval at once, or the same body again a few seconds later.
  const redelivery = random();
  if (redelivery < 0.25) deliver('/webhooks/events', events.proposalApproved(proposal), SECRETS.events, p);
  else if (redelivery < 0.45) later(2_000 + random() * 6_000, () => deliver('/webhooks/events', body, SECRETS.events, p), p);
}

/** Runs `send` after `ms`; the settling waits for it as for any send. */
export function later(ms: number, send: () => void, project: SoakProject): void {
  project.sending++;
  const waiting = sleep(ms).then(() => {
    project.sending--;
    send();
  });
  sends.add(waiting);
  void waiting.finally(() => sends.delete(waiting));
}

export function pay(): void {
  const withProposals = open().filter((p) => p.proposals.length > 0);
  if (withProposals.length === 0) return;
  const p = pick(withProposals);
  const proposal = pick(p.proposals);
  // A distinct time per payment: a note is recognised by it.
  const payment = service.addPayment(proposal.proposal_id, {
    paid_amount: 100 + (++state.counter % 900),
    pay_channel: 'service_payment',
    paid_time: new Date(Date.UTC(2026, 0, 1) + state.counter * 1000).toISOString(),
    payment_method: pick(['Card', 'ACH', 'Check']),
    status: 'succeeded',
  });
  deliver('/webhooks/events', events.paymentReceived(proposal.proposal_id, proposal.approved_option!.drawing_id, payment), SECRETS.events, p);
}

/**
 * The CRMs as revenue ops use them: an appointment or a Deal appears (qualifying or not yet), a waiting one is
 * confirmed or signed (it qualifies then), a qualified one is edited again (it must not get a second project).
 */
export function automationTraffic(): void {
  const crm = chance(0.5) ? 'appointment' : 'record';
  const mine = [...automated].filter(([, a]) => a.crm === crm);
  const waiting = mine.filter(([, a]) => !a.qualified && !a.cancelled).map(([id]) => id);
  const qualified = mine.filter(([, a]) => a.qualified).map(([id]) => id);
  const roll = random();
  if (waiting.length > 0 && roll < 0.35) {
    const id = pick(waiting);
    if (crm === 'appointment') appointmentCrm.setStatus(id, QUALIFYING_STATUS);
    else zoho.modifyRecord('Deals', id, { Stage: QUALIFYING_STAGE });
    automated.set(id, { crm, qualified: true, cancelled: false });
    stats.automationEdits++;
  } else if (qualified.length > 0 && roll < 0.55) {
    const id = pick(qualified);
    if (crm === 'appointment') appointmentCrm.editCustomer(id, `555-${++state.counter}`);
    else zoho.modifyRecord('Deals', id, { Amount: 1000 + ++state.counter });
    stats.automationEdits++;
  } else if (automated.size < MAX_AUTOMATED) {
    // Some qualify at once, some later, some never (cancelled, lost).
    const fate = pick(['qualified', 'qualified', 'waiting', 'waiting', 'cancelled'] as const);
    let id: string;
    if (crm === 'appointment') {
      const status = { qualified: QUALIFYING_STATUS, waiting: 'Scheduled', cancelled: 'Cancelled' }[fate];
      id = appointmentCrm.addAppointment(`AUTO-${++state.counter}`, { status, customer: true });
    } else {
      const stage = { qualified: QUALIFYING_STAGE, waiting: 'Qualification', cancelled: 'Closed Lost' }[fate];
      id = zoho.addRecord('Deals', undefined, { Deal_Name: `Soak deal ${++state.counter}`, Stage: stage });
    }
    automated.set(id, { crm, qualified: fate === 'qualified', cancelled: fate === 'cancelled' });
  }
}

/** Traffic runs for SOAK_SECONDS, and on while the last crashes are still being made. */
export async function trafficLoop(until: number, chaos: { done: boolean }): Promise<void> {
  await mapProjects(6);
  let nextRetry = now() + 15_000;
  while (now() < until || !chaos.done) {
    const roll = random();
    if (roll < 0.08) await mapProjects(2);
    else if (roll < 0.4) uploadDrawing();
    else if (roll < 0.65) exportPrompt();
    else if (roll < 0.8) approve();
    else pay();
    if (chance(0.3)) automationTraffic();
    if (now() >= nextRetry) {
      nextRetry = now() + 15_000;
      await retryFailed();
    }
    await sleep(250 + random() * 400);
  }
}

export interface FailedEntry {
  id: string;
  kind: string;
  error: string | null;
  finished_at: Date;
}

/** Every failure seen before an admin retried it (a retried entry keeps only its latest error), by id and time. */
export const failures = new Map<string, FailedEntry>();

export async function retryFailed(): Promise<number> {
  for (const e of await query<FailedEntry>(`SELECT id, kind, error, finished_at FROM sync_log WHERE status = 'failed'`)) {
    failures.set(`${e.id}@${e.finished_at.getTime()}`, e);
  }
  const answer = await admin<{ retried: number }>('/api/sync-logs/retry?status=failed', { body: '{}' });
  stats.adminRetries += answer.retried;
  return answer.retried;
}
