/** Exactly once on an appointment, whichever CRM holds it (appointment-crm.ts reads it): the same facts for each. */
import type { LineItemsResult } from '../../sim/service/types.js';
import type { AppointmentOutcome } from './appointment-crm.js';
import { personOwns } from './drifts.js';
import { appointmentCrm, service, type SoakProject } from './world.js';

type Count = (what: string, n: number) => string;

/**
 * Each drawing's latest PDF once among the appointment's drawing files; once an export was answered yes or a proposal
 * approved, exactly one proposal file, one sale whose total and items are the line items of a drawing exported or
 * approved, and the result the org's Sold value; none of these otherwise; each payment's note once.
 */
export function appointmentProblems(
  p: SoakProject,
  paidTimes: string[],
  figures: { pushes: number; appointmentNotesDoubledByLimit: number },
  lost: (what: string) => string,
  doubled: Count,
  noteMayDouble: boolean,
): string[] {
  const problems: string[] = [];
  const where = `appointment ${p.appointmentId}`;
  const appt = appointmentCrm.outcome(p.appointmentId!);
  for (const drawingId of p.drawings) {
    const pdf = service.drawings.get(drawingId)!.pdf;
    const n = appt.drawingFiles.filter((bytes) => bytes.equals(pdf)).length;
    if (n === 0) problems.push(lost(`${where}: the latest PDF of drawing ${drawingId}`));
    if (n > 1) problems.push(doubled(`${where}: drawing ${drawingId}'s PDF`, n));
  }
  if (appt.drawingFiles.length > p.drawings.length) problems.push(`${where}: ${appt.drawingFiles.length} drawing files for ${p.drawings.length} drawings`);
  figures.pushes += appt.drawingFiles.length;

  if (p.exportedYes || p.proposals.length > 0) {
    if (appt.proposalFiles === 0) problems.push(lost(`${where}: its proposal PDF`));
    if (appt.proposalFiles > 1) problems.push(doubled(`${where}: proposal PDF`, appt.proposalFiles));
    // A sale a person deleted afterwards stays deleted (drifts.ts checks that it does).
    const deletedByPerson = personOwns(p.appointmentId!, 'sale_missing');
    if (appt.sales.length === 0 && !deletedByPerson) problems.push(lost(`${where}: its sale`));
    if (appt.sales.length > 1) problems.push(doubled(`${where}: its sale`, appt.sales.length));
    const drawings = new Set([...p.exportedDrawings, ...p.proposals.map((proposal) => proposal.approved_option!.drawing_id)]);
    const versions = [...drawings].flatMap((id) => service.drawings.get(id)!.versions.map((v) => v.lineItems));
    for (const sale of appt.sales.filter((s) => !versions.some((lineItems) => saleIs(s, lineItems)))) {
      problems.push(`${where}: a sale of ${sale.items.length} item(s), total ${sale.total}, not the line items of a drawing exported or approved`);
    }
    if (appt.status !== appointmentCrm.soldValue) problems.push(lost(`${where}: status ${appointmentCrm.soldValue} (it is ${appt.status})`));
    figures.pushes += 3;
  } else if (appt.proposalFiles > 0 || appt.sales.length > 0) {
    problems.push(`${where}: a proposal or sale though no export was answered yes and no proposal approved`);
  }

  let doubledByLimit = 0;
  for (const paid of paidTimes) {
    const n = appt.notes.filter((text) => text.includes(`date: ${paid};`)).length;
    figures.pushes += Math.min(n, 1);
    if (n === 0) problems.push(lost(`${where}: the note of the payment at ${paid}`));
    // docs/guarantees.md, "Limits": the REST soak lets a replica killed between a note's POST and its record add it again.
    if (n > 1 && noteMayDouble) doubledByLimit += n - 1;
    else if (n > 1) problems.push(doubled(`${where}: the note of the payment at ${paid}`, n));
  }
  figures.appointmentNotesDoubledByLimit += doubledByLimit;
  if (appt.notes.length > paidTimes.length + doubledByLimit) problems.push(`${where}: ${appt.notes.length} notes for ${paidTimes.length} payments`);
  return problems;
}

const cents = (value: number | null | undefined) => (value === null || value === undefined ? null : Math.round(value * 100));

/** The sale's total and its items (name, quantity, price; in any order) are exactly these line items. */
function saleIs(sale: AppointmentOutcome['sales'][number], lineItems: LineItemsResult): boolean {
  const key = (item: { name: string; quantity: number; price?: number | null }) => JSON.stringify([item.name, item.quantity, cents(item.price)]);
  const mine = sale.items.map(key).sort();
  const theirs = lineItems.line_items.map(key).sort();
  return cents(sale.total) === cents(lineItems.total) && mine.length === theirs.length && mine.every((k, i) => k === theirs[i]);
}
