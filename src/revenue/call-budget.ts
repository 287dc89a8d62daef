/** The CRM calls one pass may make of one CRM (REVENUE_CHECK_CALL_BUDGET); what is left over waits for the next pass. */
export class CallBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Takes `calls` from the budget; false (taking nothing) when they do not fit. */
  take(calls = 1): boolean {
    if (this.used + calls > this.limit) return false;
    this.used += calls;
    return true;
  }

  /** Whether `calls` more fit, taking nothing. */
  fits(calls: number): boolean {
    return this.used + calls <= this.limit;
  }

  /** Counts calls already made whose number was known only after (a query's further pages): they may pass the limit. */
  spend(calls: number): void {
    this.used += calls;
  }

  get spent(): number {
    return this.used;
  }
}

/** What one source of a pass did: the records it compared, the calls it made, whether it stopped at the budget. */
export interface SourceOutcome {
  checked: number;
  calls: number;
  stopped: boolean;
}

/** Values as the drift rows show them: an amount to the cent, anything else as text; null for nothing. */
export function shownValue(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
