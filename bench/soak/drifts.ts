/**
 * Revenue drifts injected (docs/operations.md, "Revenue that stays right"): once some approvals are pushed, a person
 * edits records whose traffic is over (a Deal's Amount, a Deal's Stage moved back, a row of an approved drawing's
 * Quote, the appointment's sale deleted) through the simulators' "person edits" calls, and the soak checks that the
 * revenue check found each within one pass, that auto-heal healed only crm-sync's own last writes (watched as they
 * are recorded, against the simulators' last modifier), and that no person's edit was overwritten.
 */
import { SOAK_PERSON } from './appointment-crm.js';
import type { Check } from './check.js';
import { WON_STAGE, admin, appointmentCrm, dealMapped, now, projects, query, service, sleep, started, zoho, type SoakProject } from './world.js';

export type InjectedKind = 'amount' | 'stage' | 'quote_rows' | 'sale_missing';
export const INJECTED_KINDS: readonly InjectedKind[] = ['amount', 'stage', 'quote_rows', 'sale_missing'];

/** The person of the Zoho edits: not crm-sync's user (crm-oas v8.0/users.json, Minified_User). */
const ZOHO_PERSON = { name: SOAK_PERSON, id: '4150868000000990001', email: 'pat.person@example.com' };
/** The pushes that write what the revenue check compares (a heal is one of them). */
const REVENUE_WRITES = ['update_deal', 'push_quote', 'push_line_items', 'set_status', 'push_proposal_pdf'];
/** A stage before the won one in Zoho's default Deals pipeline: the Deal moved back. */
const STAGE_MOVED_BACK = 'Negotiation/Review';

export interface Injection {
  kind: InjectedKind;
  /** Kinds the same edit also makes differ (a Quote row's edit moves the Quote's Grand_Total too). */
  alsoKinds: string[];
  crm: 'record' | 'appointment';
  /** The drift's target: `Deals/<id>`, `Quotes/<id>`, or the appointment's id. */
  target: string;
  project: SoakProject;
  at: number;
  /** Injected while the faults ran, or after the settling (no record was ready before). */
  during: 'faults' | 'settled';
  /** What the person wrote. */
  personValue: string;
  /** Whether the CRM still holds the person's value; what it holds otherwise. */
  holds: () => string | null;
  /** Filled by the checks: the time from the edit to its drift, and which pass after the edit found it (1: the first). */
  foundMs?: number;
  foundByPass?: number;
}

export const injections: Injection[] = [];

/** A heal with trigger automation as it was recorded, and who had changed its record last in the CRM just then. */
interface AutoHeal {
  entryId: string;
  createdAt: number;
  driftId: string;
  crm: string;
  target: string;
  kind: string;
  /** The drift's by_crm_sync as the heal was recorded (kept by the soak's trigger, watchHealsFromNowOn). */
  byCrmSync: boolean;
  /** crm-sync's last write to the record that had finished when the heal was recorded (a Quote: crm-sync made it). */
  wroteBefore: boolean;
  lastModifier: { who: string; crmSync: boolean } | null;
  seenAt: number;
}

export const autoHeals: AutoHeal[] = [];

const cents = (value: unknown) => Math.round(Number(value) * 100);
const centsText = (c: number) => (c / 100).toFixed(2);

/** A drift target's record as the Zoho simulator holds it. */
function zohoRecordOf(target: string): { module: 'Deals' | 'Quotes'; id: string } | null {
  const [module, id] = target.split('/');
  return module === 'Deals' || module === 'Quotes' ? { module, id } : null;
}

/**
 * A project whose traffic can end now: its approvals' pushes all finished (nothing queued, running or failed) and a
 * pass of the revenue check since, no webhook of it still being sent or given up (an admin's reconciliation would push
 * it later), and no drift of it open but those injected (one being healed would race the person's edit).
 */
async function ready(p: SoakProject): Promise<boolean> {
  if (p.proposals.length === 0 || p.sending > 0 || p.gaveUp) return false;
  const [busy] = await query<{ n: string }>(`SELECT count(*) AS n FROM sync_log WHERE project_id = $1 AND status IN ('queued', 'running', 'failed')`, [p.id]);
  if (busy.n !== '0') return false;
  // A pass has compared the record since crm-sync's last revenue write to it: a drift of crm-sync's own write that a
  // pass is about to find would be healed by a decision taken before the person's edit.
  const [seen] = await query<{ n: string }>(
    `SELECT count(*) AS n FROM sync_log WHERE kind = 'revenue_check' AND status = 'succeeded'
        AND started_at > (SELECT max(finished_at) FROM sync_log WHERE project_id = $1 AND kind = ANY($2::text[]))`,
    [p.id, REVENUE_WRITES],
  );
  if (seen.n === '0') return false;
  const open = await query<{ crm: string; target: string; kind: string }>(
    `SELECT crm, target, kind FROM revenue_drift WHERE project_id = $1 AND state = 'open'`,
    [p.id],
  );
  const injected = (d: { crm: string; target: string; kind: string }) =>
    injections.some((i) => i.crm === d.crm && i.target === d.target && (i.kind === d.kind || i.alsoKinds.includes(d.kind)));
  return open.every(injected);
}

/** The Deal-mapped project's Deal, when it holds its approval (Amount and Stage Closed Won). */
function approvedDeal(p: SoakProject): string | null {
  if (!dealMapped(p) || p.proposals.length !== 1) return null;
  const deal = zoho.revenue.fieldsOf('Deals', p.recordId!);
  return cents(deal.Amount) === cents(p.proposals[0].total) && deal.Stage === WON_STAGE ? p.recordId! : null;
}

/** The Quote of the approved drawing on the project's Deal, when there is exactly one with the service's total. */
function approvedQuote(p: SoakProject): string | null {
  if (!approvedDeal(p)) return null;
  const drawingId = p.proposals[0].approved_option!.drawing_id;
  const mine = zoho.revenue.quotesOfDeal(p.recordId!).filter((q) => String(q.fields.Subject).startsWith(`Drawing ${drawingId} - `));
  if (mine.length !== 1) return null;
  return cents(mine[0].fields.Grand_Total) === cents(service.drawings.get(drawingId)!.lineItems.total) ? mine[0].id : null;
}

/** The projects a kind may be injected into: each kind its own record, a Deal taking at most one edit of each kind. */
function candidates(kind: InjectedKind): SoakProject[] {
  const taken = (p: SoakProject) => injections.some((i) => i.project === p && i.kind === kind);
  if (kind === 'sale_missing') {
    return projects.filter((p) => p.crm === 'appointment' && p.proposals.length > 0 && !taken(p) && !p.drifted);
  }
  // Deals not drifted yet first; a Deal already drifted only when none other is ready (few Deals are approved in a run).
  const deals = projects.filter((p) => dealMapped(p) && !taken(p));
  return [...deals.filter((p) => !p.drifted), ...deals.filter((p) => p.drifted)];
}

/** Injects one person's edit of this kind into a ready record; false when none is ready. */
async function inject(kind: InjectedKind, during: Injection['during']): Promise<boolean> {
  for (const p of candidates(kind)) {
    if (!(await ready(p))) continue;
    const injection = edit(kind, p);
    if (!injection) continue;
    p.drifted = true;
    injections.push({ ...injection, kind, project: p, during });
    console.log(
      `  ${((injection.at - started) / 1000).toFixed(0).padStart(4)} s  drift injected: ${kind} of ${injection.crm === 'record' ? 'Zoho' : 'appointment'} ${injection.target} (a person wrote ${injection.personValue})`,
    );
    return true;
  }
  return false;
}

/** The person's edit itself, through the simulator's "person edits" call; null when the record is not as it must be. */
function edit(kind: InjectedKind, p: SoakProject): Omit<Injection, 'kind' | 'project' | 'during'> | null {
  const at = now();
  switch (kind) {
    case 'amount': {
      const dealId = approvedDeal(p);
      if (!dealId) return null;
      const value = cents(p.proposals[0].total) + 12_345;
      zoho.revenue.editByHand('Deals', dealId, { Amount: value / 100 }, ZOHO_PERSON);
      const holds = () => {
        const amount = zoho.revenue.fieldsOf('Deals', dealId).Amount;
        return cents(amount) === value ? null : `Amount ${String(amount)}`;
      };
      return { alsoKinds: [], crm: 'record', target: `Deals/${dealId}`, at, personValue: `Amount ${centsText(value)}`, holds };
    }
    case 'stage': {
      const dealId = approvedDeal(p);
      if (!dealId) return null;
      zoho.revenue.editByHand('Deals', dealId, { Stage: STAGE_MOVED_BACK }, ZOHO_PERSON);
      const holds = () => {
        const stage = zoho.revenue.fieldsOf('Deals', dealId).Stage;
        return stage === STAGE_MOVED_BACK ? null : `Stage ${String(stage)}`;
      };
      return { alsoKinds: [], crm: 'record', target: `Deals/${dealId}`, at, personValue: `Stage ${STAGE_MOVED_BACK}`, holds };
    }
    case 'quote_rows': {
      const quoteId = approvedQuote(p);
      if (!quoteId) return null;
      // One more of the first row's item: its totals (and so the Quote's) follow.
      const rows = ((zoho.revenue.fieldsOf('Quotes', quoteId).Quoted_Items as Array<Record<string, unknown>> | undefined) ?? []).map((r) => ({ ...r }));
      if (rows.length === 0) return null;
      const row = rows[0];
      const price = cents(row.List_Price ?? 10) || 1_000;
      const add = (field: string) => (row[field] = (cents(row[field] ?? 0) + price) / 100);
      row.Quantity = Number(row.Quantity ?? 1) + 1;
      for (const field of ['Total', 'Total_After_Discount', 'Net_Total']) add(field);
      const value = cents(row.Net_Total);
      zoho.revenue.editByHand('Quotes', quoteId, { Quoted_Items: rows }, ZOHO_PERSON);
      const holds = () => {
        const first = ((zoho.revenue.fieldsOf('Quotes', quoteId).Quoted_Items as Array<Record<string, unknown>> | undefined) ?? [])[0];
        return first && cents(first.Net_Total) === value && first.Quantity === row.Quantity
          ? null
          : `first row ${first ? `${String(first.Quantity)} × = ${String(first.Net_Total)}` : 'gone'}`;
      };
      return {
        alsoKinds: ['quote_total'],
        crm: 'record',
        target: `Quotes/${quoteId}`,
        at,
        personValue: `first row ${String(row.Quantity)} × = ${centsText(value)}`,
        holds,
      };
    }
    case 'sale_missing': {
      const id = p.appointmentId!;
      const outcome = appointmentCrm.outcome(id);
      if (outcome.sales.length !== 1 || outcome.status !== appointmentCrm.soldValue) return null;
      if (!appointmentCrm.personDeletesSale(id)) return null;
      const holds = () => {
        const sales = appointmentCrm.outcome(id).sales;
        return sales.length === 0 ? null : `${sales.length} sale(s), total ${sales.map((s) => s.total).join(', ')}`;
      };
      return {
        alsoKinds: [],
        crm: 'appointment',
        target: id,
        at,
        personValue: 'the sale deleted',
        holds,
      };
    }
  }
}

/**
 * While the traffic and the faults run (from `from` on, until the traffic's time is up and the last crash made): each
 * kind not injected yet, into a record that is ready, now and then.
 */
export async function driftLoop(from: number, until: number, chaos: { done: boolean }): Promise<void> {
  if (now() < from) await sleep(from - now());
  while (now() < until || !chaos.done) {
    for (const kind of INJECTED_KINDS) if (!injections.some((i) => i.kind === kind)) await inject(kind, 'faults');
    if (INJECTED_KINDS.every((kind) => injections.some((i) => i.kind === kind))) return;
    await sleep(2_000);
  }
}

/** After the settling: the kinds no record was ready for while the traffic ran (each run injects every kind it can). */
export async function injectRemaining(deadline: number): Promise<void> {
  while (now() < deadline) {
    const missing = INJECTED_KINDS.filter((kind) => !injections.some((i) => i.kind === kind) && candidates(kind).length > 0);
    if (missing.length === 0) return;
    for (const kind of missing) await inject(kind, 'settled');
    await sleep(1_000);
  }
}

interface Pass {
  id: string;
  scope: string;
  started_at: Date;
  finished_at: Date;
}

/**
 * The revenue check's passes that succeeded and started after `at`, in the order they finished. A pass whose run an
 * injected fault or a crash ended does not count: it runs again as a new start of the same entry, counted if it succeeds.
 */
async function passesAfter(at: number): Promise<Pass[]> {
  return query<Pass>(
    `SELECT id::text AS id, coalesce(payload->>'scope', 'changes') AS scope, started_at, finished_at FROM sync_log
      WHERE kind = 'revenue_check' AND status = 'succeeded' AND started_at > to_timestamp($1 / 1000.0)
      ORDER BY finished_at`,
    [at],
  );
}

/** Until a pass that counts has finished after every injection (asking for one if the schedule is late). */
export async function waitForPasses(deadline: number): Promise<boolean> {
  let asked = now();
  while (now() < deadline) {
    let waiting = 0;
    for (const i of injections) if ((await passesAfter(i.at)).length === 0) waiting++;
    if (waiting === 0) return true;
    if (now() - asked > 20_000) {
      asked = now();
      await admin('/api/revenue/check', { body: JSON.stringify({ scope: 'changes' }) });
    }
    await sleep(1_000);
  }
  return false;
}

/** Who changed a drift's record last in its CRM, as the simulator shows it now. */
function lastModifierOf(crm: string, target: string, kind: string): { who: string; crmSync: boolean } | null {
  if (crm === 'record') {
    const record = zohoRecordOf(target);
    const by = record ? zoho.lastModifier(record.module, record.id) : undefined;
    return by ? { who: by.email ?? by.name ?? '?', crmSync: by.email === zoho.account.email } : null;
  }
  return appointmentCrm.lastModifier(target, kind.startsWith('sale_') ? 'sale' : 'appointment');
}

/**
 * Keeps, for each heal recorded from now on, its drift as it was at that moment (a trigger on the sync log, in the
 * soak's database only): a pass run again after a fault, or the next one, updates the drift within a fraction of a
 * second, before any watch could read it.
 */
export async function watchHealsFromNowOn(): Promise<void> {
  await query(`CREATE TABLE IF NOT EXISTS soak_heal_seen (entry_id bigint PRIMARY KEY, drift_id bigint NOT NULL, by_crm_sync boolean,
    changed_by text, changed_at timestamptz)`);
  await query(`CREATE OR REPLACE FUNCTION soak_heal_seen() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO soak_heal_seen (entry_id, drift_id, by_crm_sync, changed_by, changed_at)
        SELECT NEW.id, d.id, d.by_crm_sync, d.changed_by, d.changed_at FROM revenue_drift d WHERE d.id::text = split_part(NEW.dedupe_key, ':', 3)
        ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$`);
  await query(`CREATE OR REPLACE TRIGGER soak_heal_seen AFTER INSERT ON sync_log FOR EACH ROW
    WHEN (NEW.dedupe_key LIKE 'revenue:heal:%') EXECUTE FUNCTION soak_heal_seen()`);
}

/**
 * Watches the heals auto-heal records (trigger automation), each with its drift's by_crm_sync and who changed the
 * record last in the simulator just then, until `stop` is set.
 */
export async function watchAutoHeals(stop: { done: boolean }): Promise<void> {
  let after = '0';
  while (!stop.done) {
    // A Deal is the Zoho user's until crm-sync's update_deal (its other writes, notes and files, leave Modified_By be).
    const rows = await query<{
      id: string;
      created_at: Date;
      drift_id: string;
      crm: string;
      target: string;
      kind: string;
      by_crm_sync: boolean;
      wrote_before: boolean;
    }>(
      `SELECT s.id::text AS id, s.created_at, d.id::text AS drift_id, d.crm, d.target, d.kind, h.by_crm_sync,
              d.target LIKE 'Quotes/%' OR EXISTS (SELECT 1 FROM sync_log w WHERE w.crm = d.crm AND w.target = d.target AND w.status = 'succeeded'
                AND w.finished_at <= s.created_at AND w.kind <> 'revenue_check' AND (d.crm <> 'record' OR w.kind = 'update_deal')) AS wrote_before
         FROM sync_log s JOIN soak_heal_seen h ON h.entry_id = s.id JOIN revenue_drift d ON d.id = h.drift_id
        WHERE s.trigger = 'automation' AND s.id > $1::bigint ORDER BY s.id`,
      [after],
    ).catch(() => []);
    for (const r of rows) {
      after = r.id;
      autoHeals.push({
        entryId: r.id,
        createdAt: r.created_at.getTime(),
        driftId: r.drift_id,
        crm: r.crm,
        target: r.target,
        kind: r.kind,
        byCrmSync: r.by_crm_sync,
        wroteBefore: r.wrote_before,
        lastModifier: lastModifierOf(r.crm, r.target, r.kind),
        seenAt: now(),
      });
    }
    await sleep(200);
  }
}

/** Figures of the drifts for the report. */
export interface DriftFigures {
  injected: number;
  found: number;
  autoHeals: number;
  /** The auto-heals by the kind of their drift. */
  autoHealKinds: Record<string, number>;
  /** Each auto-heal in a line, for a run that failed. */
  autoHealLines: string[];

  /** Per kind: injected, found, the passes' delays. */
  byKind: Array<{ kind: string; injected: number; found: number; delays: number[]; passes: number[]; during: string[] }>;
}

/** The drift invariants: each injected drift found within one pass, auto-heal on crm-sync's own writes only, no person's edit overwritten. */
export async function driftChecks(): Promise<{ checks: Check[]; figures: DriftFigures }> {
  const checks: Check[] = [];
  const missingKinds = INJECTED_KINDS.filter((kind) => !injections.some((i) => i.kind === kind));
  checks.push({
    name: `a person's edit injected of each kind (${INJECTED_KINDS.join(', ')})`,
    problems: missingKinds.map((kind) => `no ${kind} injected: no record of that kind was ready (${candidates(kind).length} candidate(s))`),
  });

  // (a) Found within one pass: the first pass that started after the edit and succeeded had raised it when it finished.
  const found: string[] = [];
  for (const i of injections) {
    const where = `${i.kind} of ${i.target}`;
    const passes = await passesAfter(i.at);
    const rows = await query<{ kind: string; state: string; found_at: Date; crm_value: string | null; by_crm_sync: boolean; changed_by: string | null }>(
      `SELECT kind, state, found_at, crm_value, by_crm_sync, changed_by FROM revenue_drift WHERE crm = $1 AND target = $2 AND kind = ANY($3::text[])`,
      [i.crm, i.target, [i.kind, ...i.alsoKinds]],
    );
    const drift = rows.find((r) => r.kind === i.kind);
    if (passes.length === 0) {
      found.push(`${where}: no pass succeeded after the edit`);
      continue;
    }
    if (!drift) {
      found.push(`${where}: no drift raised after ${passes.length} pass(es) (the first #${passes[0].id})`);
      continue;
    }
    const foundAt = drift.found_at.getTime();
    const by = passes.findIndex((pass) => pass.finished_at.getTime() >= foundAt);
    if (foundAt < i.at) found.push(`${where}: the drift was found ${((i.at - foundAt) / 1000).toFixed(1)} s before the edit (open before it)`);
    else if (by !== 0)
      found.push(`${where}: found ${((foundAt - i.at) / 1000).toFixed(1)} s after the edit, after pass #${passes[0].id} (the first after it) had finished`);
    if (drift.by_crm_sync) found.push(`${where}: the drift says crm-sync changed it last (${drift.changed_by ?? 'nobody named'})`);
    i.foundMs = foundAt - i.at;
    i.foundByPass = by + 1;
  }
  checks.push({ name: 'every injected drift found by the first pass after it', problems: found });

  // (b) Auto-heal healed only crm-sync's own last writes: its drift said so as the heal was recorded,
  // crm-sync had written the record and no person had edited it since, and the simulator showed crm-sync as its last
  // modifier when the heal was seen (unless a person's edit came after the heal, or the sale is gone).
  const healed: string[] = [];
  for (const h of autoHeals) {
    const where = `heal #${h.entryId} (${h.kind} of ${h.target})`;
    if (!h.byCrmSync) healed.push(`${where}: its drift #${h.driftId} does not say crm-sync changed it last`);
    if (!h.wroteBefore) healed.push(`${where}: crm-sync had not written the record when the heal was recorded`);
    const person = injections.find((i) => i.crm === h.crm && i.target === h.target && i.at <= h.createdAt);
    if (person) healed.push(`${where}: recorded ${((h.createdAt - person.at) / 1000).toFixed(1)} s after a person's edit (${person.kind})`);
    const laterPerson = injections.some((i) => i.crm === h.crm && i.target === h.target && i.at > h.createdAt && i.at <= h.seenAt);
    const saleGone = h.lastModifier === null && h.kind.startsWith('sale_');
    if (!laterPerson && !saleGone && !h.lastModifier?.crmSync) {
      healed.push(`${where}: the CRM showed ${h.lastModifier?.who ?? 'nobody'} as its last modifier, not crm-sync`);
    }
  }
  checks.push({ name: "auto-heal healed only drifts whose last change was crm-sync's own write", problems: healed });

  // (c) No person's edit overwritten: the CRM still holds each; no heal was recorded for it.
  const kept: string[] = [];
  for (const i of injections) {
    const holds = i.holds();
    if (holds !== null) kept.push(`${i.kind} of ${i.target}: the person wrote ${i.personValue}, the CRM holds ${holds}`);
    const heals = await query<{ id: string; trigger: string }>(
      `SELECT s.id::text AS id, s.trigger FROM sync_log s JOIN revenue_drift d ON d.id::text = split_part(s.dedupe_key, ':', 3)
        WHERE s.dedupe_key LIKE 'revenue:heal:%' AND d.crm = $1 AND d.target = $2 AND d.kind = ANY($3::text[]) AND s.created_at >= to_timestamp($4 / 1000.0)`,
      [i.crm, i.target, [i.kind, ...i.alsoKinds], i.at],
    );
    for (const h of heals) kept.push(`${i.kind} of ${i.target}: heal #${h.id} (trigger ${h.trigger}) recorded after the person's edit`);
  }
  checks.push({ name: "no person's edit overwritten (each injected value still in its CRM, no heal of it recorded)", problems: kept });

  const byKind = INJECTED_KINDS.map((kind) => {
    const mine = injections.filter((i) => i.kind === kind);
    const ok = mine.filter((i) => i.foundByPass === 1);
    return {
      kind,
      injected: mine.length,
      found: ok.length,
      delays: mine.filter((i) => i.foundMs !== undefined).map((i) => i.foundMs!),
      passes: mine.filter((i) => i.foundByPass !== undefined).map((i) => i.foundByPass!),
      during: mine.map((i) => i.during),
    };
  });
  return {
    checks,
    figures: {
      injected: injections.length,
      found: byKind.reduce((n, k) => n + k.found, 0),
      autoHeals: autoHeals.length,
      autoHealLines: autoHeals.map(
        (h) =>
          `heal #${h.entryId}: ${h.kind} of ${h.target} at ${((h.createdAt - started) / 1000).toFixed(1)} s, last modifier ${h.lastModifier?.who ?? 'none'}`,
      ),
      autoHealKinds: autoHeals.reduce<Record<string, number>>((counts, h) => ({ ...counts, [h.kind]: (counts[h.kind] ?? 0) + 1 }), {}),
      byKind,
    },
  };
}

/** Whether the existing exactly-once and revenue checks must leave this record's field to the person (it holds their edit). */
export function personOwns(target: string, kind: InjectedKind): boolean {
  return injections.some((i) => i.target === target && i.kind === kind);
}
