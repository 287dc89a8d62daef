/** One invariant the soak checks at the end: its name, and what broke it (none when it holds). */
export interface Check {
  name: string;
  problems: string[];
}
