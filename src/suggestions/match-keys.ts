import type { MatchKey } from '../crm-settings/automation-settings.js';

/** What a project offers to match on: its job number, its customer's e-mail and phone. */
export interface MatchValues {
  job_number: string | null;
  email: string | null;
  phone: string | null;
}

/** What a CRM record offers: its job number, the e-mails and phones of its primary fields, its person's name. */
export interface RecordValues {
  job_number: string | null;
  emails: Array<string | null>;
  phones: Array<string | null>;
  name: string | null;
}

/**
 * Values people type when they have none: a phone of one repeated digit or a run (`0000000000`, `1234567890`), an
 * address whose mailbox or domain says "none" (`noemail@…`, `none@…`, `test@…`, `…@noemail.com`), or on a domain
 * reserved for examples and tests, which reaches no one (RFC 2606, RFC 6761: `example.com`, `.org`, `.net`,
 * `*.example`, `*.test`, `*.invalid`). Two customers share them without being one, so they never match anything.
 */
const PLACEHOLDER_PHONES = /^(\d)\1{9}$|^(0123456789|1234567890|9876543210|0987654321)$/;
const PLACEHOLDER_MAILBOXES =
  /^(no|non|none|noemail|nomail|noaddress|noreply|donotreply|dontreply|na|nil|null|unknown|email|mail|test\d*|fake|dummy|sample|x+|a+|abc|asdf|customer|client|nobody|anonymous|declined|refused|notprovided|notgiven|notavailable)$/;
const PLACEHOLDER_DOMAINS = /^(none|noemail|nomail|noreply|no-email|unknown)\.[a-z]+$|(^|\.)example\.(com|org|net)$|(^|\.)(example|test|invalid)$/;
const PLACEHOLDER_JOB_NUMBERS = /^(0+|n\/?a|none|tbd|tba|unknown|null|-+|x+)$/;
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A phone as compared: its last 10 digits (country codes and punctuation differ between systems); null when shorter or a placeholder. */
export function phoneKey(phone: string | null | undefined): string | null {
  const digits = (phone ?? '').replace(/\D/g, '');
  const key = digits.length >= 10 ? digits.slice(-10) : null;
  return key === null || PLACEHOLDER_PHONES.test(key) ? null : key;
}

function emailKey(email: string | null | undefined): string | null {
  const value = (email ?? '').trim().toLowerCase();
  if (!EMAIL_SHAPE.test(value)) return null;
  const at = value.lastIndexOf('@');
  const mailbox = value.slice(0, at).replace(/[^a-z0-9]/g, '');
  return PLACEHOLDER_MAILBOXES.test(mailbox) || PLACEHOLDER_DOMAINS.test(value.slice(at + 1)) ? null : value;
}

function jobNumberKey(jobNumber: string | null | undefined): string | null {
  const value = (jobNumber ?? '').trim().toLowerCase();
  return value === '' || PLACEHOLDER_JOB_NUMBERS.test(value) ? null : value;
}

const normalized: Record<MatchKey, (value: string | null | undefined) => string | null> = { job_number: jobNumberKey, email: emailKey, phone: phoneKey };

/** A value of a key as compared on both sides; null when there is nothing to compare (empty, malformed or a placeholder). */
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

/** The keys on which a record has the project's value (compared as above), in the order of `keys`. */
export function matchedKeys(keys: readonly MatchKey[], project: MatchValues, record: RecordValues): MatchKey[] {
  return keys.filter((key) => {
    const wanted = comparable(key, project[key]);
    if (wanted === null) return false;
    const theirs = key === 'job_number' ? [record.job_number] : key === 'email' ? record.emails : record.phones;
    return theirs.some((value) => comparable(key, value) === wanted);
  });
}

/** A name's words: accents, case and punctuation left out (`Ana-María O'Neil` → `ana maria oneil`). */
function nameWords(name: string | null): string[] {
  return (name ?? '')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/['’.]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');
}

/**
 * A person's first and last name as compared: `Ana María Ruiz` → ana / ruiz (middle names left out), `Ruiz, Ana M.`
 * → ana / ruiz (the comma puts the last name first); null with fewer than two words, since a surname alone (`Ruiz`)
 * or an initial names a household, not a person.
 */
function firstAndLast(name: string | null): { first: string; last: string } | null {
  const text = name ?? '';
  const comma = text.indexOf(',');
  if (comma >= 0) {
    const [last, first] = [nameWords(text.slice(0, comma)), nameWords(text.slice(comma + 1))];
    return last.length > 0 && first.length > 0 ? { first: first[0], last: last[last.length - 1] } : null;
  }
  const words = nameWords(text);
  return words.length >= 2 ? { first: words[0], last: words[words.length - 1] } : null;
}

/**
 * Whether two customers' names are alike: two words at least on each side, the last names equal, the first names
 * equal or one the initial of the other. `Ana Ruiz` ~ `Ruiz, Ana M.` ~ `A. Ruiz`; `Ana Ruiz` ≁ `Bo Ruiz`, and
 * `Ruiz` ≁ `Bo Ruiz` (a household: the same surname, maybe the same phone and e-mail); no name: not alike.
 */
export function namesAlike(a: string | null, b: string | null): boolean {
  const [x, y] = [firstAndLast(a), firstAndLast(b)];
  if (!x || !y || x.last !== y.last || x.last.length < 2) return false;
  return x.first === y.first || (x.first.length === 1 && y.first.startsWith(x.first)) || (y.first.length === 1 && x.first.startsWith(y.first));
}

/** What a candidate's match is made of (kept on the candidate; see `Candidate`). */
export interface MatchStrength {
  matched_on: MatchKey[];
  shared_on: MatchKey[];
  names_alike: boolean;
}

/**
 * Whether a match may be mapped without review: an exact job number, or at least two independent keys (e-mail and
 * phone) with the customers' names alike; a key whose value another project or record holds as well never counts.
 */
export function isStrong(match: MatchStrength): boolean {
  const own = match.matched_on.filter((key) => !match.shared_on.includes(key));
  if (own.includes('job_number')) return true;
  return own.length >= 2 && match.names_alike;
}
