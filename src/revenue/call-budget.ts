/**
 * The CRM calls one pass may make of one CRM (REVENUE_CHECK_CALL_BUDGET); what is left over waits for the next pass.
 * What is spent is what the CRM received: `made` reads the pass's call meter (the outbound HTTP client counts every
 * request it sends, Zoho's COQL by its credits), so the adapters report nothing and nothing can be left out. A call
 * whose cost is known (a listing's page) is asked for before it is made; a record's reads are not known until made (a
 * missing file's delete, a further page), so one more record is read while as many calls as the dearest record of the
 * pass took still fit: the limit can be passed only by a record dearer than every one before it.
 */
export class CallBudget {
  private dearest = 0;

  constructor(
    readonly limit: number,
    private readonly made: () => number,
  ) {}

  /** Whether `calls` more fit. */
  fits(calls: number): boolean {
    return this.made() + calls <= this.limit;
  }

  /** Whether one more record fits: as many calls as the dearest record so far took, at least `fewest`. */
  fitsRecord(fewest: number): boolean {
    return this.fits(Math.max(fewest, this.dearest));
  }

  /** Reads one record, keeping what it cost for `fitsRecord`. */
  async record<T>(read: () => Promise<T>): Promise<T> {
    const before = this.made();
    try {
      return await read();
    } finally {
      this.dearest = Math.max(this.dearest, this.made() - before);
    }
  }

  get spent(): number {
    return this.made();
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
