import { isSafeNumber, LosslessNumber, parse, stringify } from 'lossless-json';

/** A number token of 16 characters or more: the only kind that a double may not hold exactly (also the whole text). */
const LONG_NUMBER = /(?:^|[:[,])\s*-?\d[\d.eE+-]{15,}/;

/**
 * Parses JSON so that no digit of an id is lost: integers beyond 2^53 become exact decimal strings, every other
 * number stays a number. The service writes ids as bare numbers in some answers (`36029621652695017`).
 * Text without a long number token is read by JSON.parse, which gives the same result much faster.
 */
export function parseExactJson(text: string): unknown {
  if (!LONG_NUMBER.test(text)) return JSON.parse(text);
  return parse(text, undefined, (value: string) => (isSafeNumber(value) ? Number(value) : value));
}

/** An id to be written as a bare JSON integer, digit for digit (C1's `project_id`). */
export function jsonInteger(digits: string): LosslessNumber {
  // JSON writes no leading zeros: `007` would be refused by LosslessNumber with a plain Error, so it is refused here.
  if (!/^-?(?:0|[1-9]\d*)$/.test(digits)) throw new TypeError(`not an integer: ${digits.slice(0, 40)}`);
  return new LosslessNumber(digits);
}

export function stringifyExactJson(value: unknown): string {
  return stringify(value) ?? 'null';
}

/** An id as the exact decimal string, whether it arrived as a JSON number or a string. */
export function idString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'bigint') return value.toString();
  throw new TypeError(`not an id: ${String(value).slice(0, 40)}`);
}

export function optionalIdString(value: unknown): string | null {
  return value === undefined || value === null || value === '' ? null : idString(value);
}

/** A parsed JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
