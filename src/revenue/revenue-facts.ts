import type { RevenueFact } from '../sync-log/sync-log.repository.js';

/** One record the check compares: its latest approval and crm-sync's latest succeeded writes of each kind. */
export interface Subject {
  target: string;
  projectId: string | null;
  approval: RevenueFact;
  written: Map<string, RevenueFact>;
}

/** The facts of one CRM as subjects, one per record with an approval (of `approvalKind` only, when given), in target order. */
export function subjectsOf(facts: RevenueFact[], approvalKind?: string): Subject[] {
  const byTarget = new Map<string, { approval?: RevenueFact; written: Map<string, RevenueFact> }>();
  for (const fact of facts) {
    const slot = byTarget.get(fact.target) ?? { written: new Map<string, RevenueFact>() };
    byTarget.set(fact.target, slot);
    if (fact.role === 'written') slot.written.set(fact.kind, fact);
    else if (approvalKind && fact.kind !== approvalKind) continue;
    else if (!slot.approval || later(fact, slot.approval)) slot.approval = fact;
  }
  const subjects: Subject[] = [];
  for (const [target, slot] of byTarget) {
    if (slot.approval) subjects.push({ target, projectId: slot.approval.projectId, approval: slot.approval, written: slot.written });
  }
  return subjects.sort((a, b) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0));
}

/** The latest finish among crm-sync's writes of these kinds to the record. */
export function lastWriteOf(subject: Subject, kinds: string[]): Date | null {
  let last: Date | null = null;
  for (const kind of kinds) {
    const at = subject.written.get(kind)?.finishedAt ?? null;
    if (at && (!last || at > last)) last = at;
  }
  return last;
}

export function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** Recorded after the other (ids break a tie of the same instant). */
function later(a: RevenueFact, b: RevenueFact): boolean {
  const at = new Date(a.createdAt).getTime() - new Date(b.createdAt).getTime();
  return at !== 0 ? at > 0 : BigInt(a.id) > BigInt(b.id);
}
