/** Settling, then the invariants the soak checks (docs/guarantees.md). */
import { appointmentProblems } from './appointment-invariants.js';
import type { Check } from './check.js';
import { personOwns } from './drifts.js';
import { FailedEntry, failures } from './traffic.js';
import {
  AUTOMATION_POLL_SECONDS,
  INJECTED_FAILURE,
  WON_STAGE,
  admin,
  appointmentCrm,
  automated,
  dealMapped,
  delivered,
  now,
  outages,
  projects,
  query,
  service,
  sleep,
  stats,
  zoho,
} from './world.js';
// ---- settling and the invariants ----------------------------------------------------------------------------------

export async function busy(): Promise<{ actions: number; deliveries: number }> {
  // The revenue check's passes come every few seconds for as long as the daemon runs: not work left to settle.
  const [a] = await query<{ n: string }>(`SELECT count(*) AS n FROM sync_log WHERE status IN ('queued', 'running') AND kind <> 'revenue_check'`);
  const [d] = await query<{ n: string }>(`SELECT count(*) AS n FROM webhook_inbox WHERE status = 'received'`);
  return { actions: Number(a.n), deliveries: Number(d.n) };
}

/** Records that qualified and have no mapping yet. */
export async function unmappedQualified(): Promise<string[]> {
  const ids = [...automated].filter(([, a]) => a.qualified).map(([id]) => id);
  const rows = await query<{ id: string }>(
    `SELECT coalesce(appointment_id, record_crm_record_id) AS id FROM mapping WHERE coalesce(appointment_id, record_crm_record_id) = ANY($1::text[])`,
    [ids],
  );
  const mapped = new Set(rows.map((r) => r.id));
  return ids.filter((id) => !mapped.has(id));
}

/** Once the faults stopped: reads both CRMs until every qualifying record is mapped (or the deadline). */
export async function settleAutomations(deadline: number): Promise<boolean> {
  while (now() < deadline) {
    if ((await unmappedQualified()).length === 0) return settle(deadline);
    await admin('/api/automations/appointment-crm/run', { body: '{}' });
    await admin('/api/automations/record-crm/run', { body: '{}' });
    await settle(deadline);
    await sleep(AUTOMATION_POLL_SECONDS * 1000);
  }
  return false;
}

export async function settle(deadline: number): Promise<boolean> {
  let quiet = 0;
  while (now() < deadline) {
    const { actions, deliveries } = await busy();
    quiet = actions === 0 && deliveries === 0 ? quiet + 1 : 0;
    if (quiet >= 3) return true;
    await sleep(1_000);
  }
  return false;
}

/** What the checks counted. */
export interface Figures {
  pushes: number;
  lost: number;
  doubled: number;
  appointmentNotesDoubledByLimit: number;
  projectsCreated: number;
  dealApprovals: number;
  quotes: number;
}

export async function checkInvariants(): Promise<{ checks: Check[]; figures: Figures }> {
  const checks: Check[] = [];
  const figures: Figures = { pushes: 0, lost: 0, doubled: 0, appointmentNotesDoubledByLimit: 0, projectsCreated: 0, dealApprovals: 0, quotes: 0 };
  const lost = (what: string) => {
    figures.lost++;
    return `missing: ${what}`;
  };
  const doubled = (what: string, n: number) => {
    figures.doubled += n - 1;
    return `doubled (${n}×): ${what}`;
  };

  // Exactly once, against what the service's data implies.
  const once: string[] = [];
  const noteMayDouble = appointmentCrm.notesMayDoubleOnKill && (stats.crashes['replica SIGKILL'] ?? 0) > 0;
  for (const p of projects) {
    const payments = p.proposals.flatMap((proposal) => (service.payments.get(proposal.proposal_id) ?? []).map((pay) => ({ proposal, pay })));
    if (p.crm === 'appointment') {
      once.push(
        ...appointmentProblems(
          p,
          payments.map(({ pay }) => pay.paid_time!),
          figures,
          lost,
          doubled,
          noteMayDouble,
        ),
      );
    } else {
      const attachments = zoho.attachmentsOf(p.module!, p.recordId!);
      const notes = zoho.notesOf(p.module!, p.recordId!);
      const where = `${p.module} ${p.recordId}`;
      for (const proposal of p.proposals) {
        const n = attachments.filter((a) => a.fileName === `proposal-${proposal.proposal_id}-signed.pdf`).length;
        if (n === 0) once.push(lost(`${where}: the signed PDF of proposal ${proposal.proposal_id}`));
        if (n > 1) once.push(doubled(`${where}: the signed PDF of proposal ${proposal.proposal_id}`, n));
      }
      const exports = new Map<string, number>();
      for (const a of attachments) {
        const suffix = / \[([^\]]+)\]\.pdf$/.exec(a.fileName)?.[1];
        if (suffix) exports.set(suffix, (exports.get(suffix) ?? 0) + 1);
      }
      for (const [suffix, n] of exports) if (n > 1) once.push(doubled(`${where}: the export [${suffix}]`, n));
      if (exports.size < p.recordExports.size) once.push(lost(`${where}: ${p.recordExports.size - exports.size} of ${p.recordExports.size} exports`));
      if (exports.size > p.recordExports.size) once.push(`${where}: ${exports.size} exports for ${p.recordExports.size} delivered yes prompts`);
      figures.pushes += attachments.length;
      for (const { pay } of payments) {
        const n = notes.filter((note) => note.content.includes(`Date: ${pay.paid_time}`)).length;
        figures.pushes += Math.min(n, 1);
        if (n === 0) once.push(lost(`${where}: the note of the payment at ${pay.paid_time}`));
        if (n > 1) once.push(doubled(`${where}: the note of the payment at ${pay.paid_time}`, n));
      }
      if (notes.length > payments.length) once.push(`${where}: ${notes.length} notes for ${payments.length} payments`);
    }
  }
  checks.push({ name: 'every fact reached its CRM exactly once', problems: once });
  checks.push({
    name: "every approval of a Deal is its Amount and Stage, and one Quote per drawing with the service's total",
    problems: revenueProblems(figures, lost, doubled),
  });

  // One project per record that qualified, mapped to it; none for the others.
  const oneProject: string[] = [];
  const mappedTo = new Map(
    (
      await query<{ id: string; project_id: string; source: string }>(
        `SELECT coalesce(appointment_id, record_crm_record_id) AS id, project_id, source FROM mapping`,
      )
    ).map((m) => [m.id, m]),
  );
  for (const [id, a] of automated) {
    const what = a.crm === 'appointment' ? `appointment ${id}` : `Deal ${id}`;
    const made = [...service.projects.values()].filter((p) => p.name.endsWith(` (${id})`));
    figures.projectsCreated += made.length;
    if (!a.qualified) {
      if (made.length > 0) oneProject.push(`${what} never qualified but has ${made.length} project(s)`);
      continue;
    }
    if (made.length === 0) oneProject.push(lost(`${what}: its project`));
    if (made.length > 1) oneProject.push(doubled(`${what}: its project`, made.length));
    const mapping = mappedTo.get(id);
    if (made.length === 1 && (!mapping || mapping.project_id !== made[0].id || mapping.source !== 'automation')) {
      oneProject.push(`${what}: mapped ${mapping ? `to ${mapping.project_id} by ${mapping.source}` : 'to nothing'}, not to its project ${made[0].id}`);
    }
  }
  checks.push({ name: 'one project per appointment or Deal that qualified (none for the others)', problems: oneProject });

  // Under refresh-token rotation a replaced refresh token presented again revokes the consent: it must never happen.
  const reused = appointmentCrm.orgEvents?.['rotated-out refresh tokens presented'] ?? 0;
  checks.push({
    name: 'the appointment CRM’s connection kept through every rotation of its refresh token',
    problems: reused ? [`${reused} rotated-out refresh token(s) presented (each revokes the consent)`] : [],
  });

  const { actions, deliveries } = await busy();
  checks.push({
    name: 'no action queued or running, no delivery unrouted',
    problems: [...(actions ? [`${actions} action(s) queued or running`] : []), ...(deliveries ? [`${deliveries} delivery(ies) still received`] : [])],
  });

  const explained = (e: { error: string | null; finished_at: Date }) =>
    INJECTED_FAILURE.test(e.error ?? '') || outages.some((o) => e.finished_at.getTime() >= o.from - 1_000 && e.finished_at.getTime() <= o.to + 30_000);
  const stillFailed = await query<FailedEntry>(`SELECT id, kind, error, finished_at FROM sync_log WHERE status = 'failed' ORDER BY id`);
  checks.push({
    name: 'every failed entry is explained by an injected fault',
    problems: [...failures.values(), ...stillFailed].filter((e) => !explained(e)).map((e) => `#${e.id} ${e.kind}: ${e.error}`),
  });
  checks.push({
    name: 'no entry left failed after the faults stopped and an admin retried',
    problems: stillFailed.map((e) => `#${e.id} ${e.kind}: ${e.error}`),
  });

  const missing: string[] = [];
  for (const d of delivered) {
    const [row] = await query<{ n: string }>(`SELECT count(*) AS n FROM webhook_inbox WHERE body = $1`, [Buffer.from(d.raw)]);
    if (Number(row.n) === 0) missing.push(`${d.path}: ${d.raw.slice(0, 160)}`);
  }
  figures.lost += missing.length;
  checks.push({ name: 'every webhook answered 2xx is in the inbox', problems: missing });

  const mappings = await query<{ status: string; n: string }>(`SELECT status, count(*) AS n FROM mapping GROUP BY status`);
  const notAssociated = mappings.filter((m) => m.status !== 'associated').map((m) => `${m.n} mapping(s) ${m.status}`);
  checks.push({ name: 'every mapping associated', problems: notAssociated });
  return { checks, figures };
}

export const cents = (value: unknown) => Math.round(Number(value) * 100);

/**
 * Revenue in Zoho: each approved proposal of a Deal-mapped project is the Deal's Amount to the cent and its Stage
 * Closed Won; each drawing approved or exported (answered yes) has exactly one Quote on the Deal (Deal_Name, Subject
 * `Drawing <id> - …`) whose Grand_Total is the drawing's total to the cent; no drawing has two.
 */
export function revenueProblems(
  figures: { pushes: number; dealApprovals: number; quotes: number },
  lost: (what: string) => string,
  doubled: (what: string, n: number) => string,
): string[] {
  const problems: string[] = [];
  for (const p of projects.filter(dealMapped)) {
    const where = `Deal ${p.recordId}`;
    const deal = zoho.revenue.fieldsOf('Deals', p.recordId!);
    const quotes = zoho.revenue.quotesOfDeal(p.recordId!);
    const approved = new Set(p.proposals.map((proposal) => proposal.approved_option!.drawing_id));
    for (const proposal of p.proposals) {
      figures.pushes += 2;
      figures.dealApprovals++;
      // A field a person edited afterwards holds their value (drifts.ts checks that it still does).
      if (personOwns(`Deals/${p.recordId}`, 'amount')) figures.pushes--;
      else if (deal.Amount === undefined) problems.push(lost(`${where}: the Amount of proposal ${proposal.proposal_id}`));
      else if (cents(deal.Amount) !== cents(proposal.total)) problems.push(`${where}: Amount ${String(deal.Amount)}, not the approved ${proposal.total}`);
      if (personOwns(`Deals/${p.recordId}`, 'stage')) figures.pushes--;
      else if (deal.Stage !== WON_STAGE) problems.push(`${where}: Stage ${String(deal.Stage)}, not ${WON_STAGE} after proposal ${proposal.proposal_id}`);
    }
    for (const drawingId of p.drawings) {
      const prefix = `Drawing ${drawingId} - `;
      const mine = quotes.filter((q) => typeof q.fields.Subject === 'string' && q.fields.Subject.startsWith(prefix));
      const why = approved.has(drawingId) ? 'approved' : p.exportedDrawings.has(drawingId) ? 'exported' : null;
      if (mine.length > 1) problems.push(doubled(`${where}: the Quote of drawing ${drawingId}`, mine.length));
      if (why && mine.length === 0) problems.push(lost(`${where}: the Quote of drawing ${drawingId} (${why})`));
      if (!why && mine.length === 0) continue;
      figures.pushes++;
      figures.quotes += mine.length;
      const total = service.drawings.get(drawingId)!.lineItems.total;
      for (const q of mine.filter((q) => cents(q.fields.Grand_Total) !== cents(total) && !personOwns(`Quotes/${q.id}`, 'quote_rows'))) {
        problems.push(`${where}: Quote ${q.id} of drawing ${drawingId} has Grand_Total ${String(q.fields.Grand_Total)}, not the service's ${total.toFixed(2)}`);
      }
    }
    const strays = quotes.filter((q) => !p.drawings.some((d) => String(q.fields.Subject).startsWith(`Drawing ${d} - `)));
    if (strays.length > 0) problems.push(`${where}: ${strays.length} Quote(s) of no drawing of its project`);
  }
  return problems;
}
