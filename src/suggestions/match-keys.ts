import type { MatchKey } from '../crm-settings/automation-settings.js';

/** What a project offers to match on: its job number, its customer's e-mail and phone. */
export interface MatchValues {
  job_number: string | null;
  email: string | null;
  phone: string | null;
}

/** A phone as compared: its last 10 digits (country codes and punctuation differ between systems); null when shorter. */
export function phoneKey(phone: string | null | undefined): string | null {
  const digits = (phone ?? '').replace(/\D/g, '');
  return digits.length >= 10 ? digits.slice(-10) : null;
}

const normalized: Record<MatchKey, (value: string | null | undefined) => string | null> = {
  job_number: (v) => (v && v.trim() !== '' ? v.trim().toLowerCase() : null),
  email: (v) => (v && v.includes('@') ? v.trim().toLowerCase() : null),
  phone: phoneKey,
};

/** A value of a key as compared on both sides; null when there is nothing to compare. */
export function comparable(key: MatchKey, value: string | null | undefined): string | null {
  return normalized[key](value);
}

/** The keys of `matchOn` the project has a value for. */
export function usableKeys(matchOn: readonly MatchKey[], values: MatchValues): MatchKey[] {
  return matchOn.filter((key) => comparable(key, values[key]) !== null);
}

/**
 * What a look for candidates is made of: the keys, their values as compared, and (Zoho) the field holding the job
 * number. The same text means the same look, which is not made twice.
 */
export function lookedFor(keys: MatchKey[], values: MatchValues, jobNumberField?: string): string {
  return keys.map((key) => `${key}${key === 'job_number' && jobNumberField ? `@${jobNumberField}` : ''}=${comparable(key, values[key])}`).join('&');
}
