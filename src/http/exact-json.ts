import { isSafeNumber, LosslessNumber, stringify } from 'lossless-json';

/** A number token of 16 characters or more: the only kind that a double may not hold exactly (also the whole text). */
const LONG_NUMBER = /(?:^|[:[,])\s*-?\d[\d.eE+-]{15,}/;

/**
 * A number token a double may not hold: 16 characters or more, or with an exponent (shorter ones have at most 15
 * digits, which a double holds). Also found inside strings, which parseExactJson tells apart.
 */
const UNSAFE_CANDIDATE = /-?\d[\d.eE+-]{15,}|-?\d[\d.]*[eE][+-]?\d+/g;

/**
 * Parses JSON so that no digit of an id is lost: integers beyond 2^53 become exact decimal strings, every other
 * number stays a number. The service writes ids as bare numbers in some answers (`36029621652695017`).
 *
 * JSON.parse reads it, fast: text without a long number token as it came; text with one once every number a double
 * cannot hold (lossless-json's `isSafeNumber`) is written as a string. lossless-json's own parser, which read such
 * text before, is JavaScript and blocked the event loop for seconds on an answer of a few MB (bench/stalls.ts),
 * longer than a job's lock waits to be renewed. The text is first parsed as it came, so that what is not JSON is
 * refused as JSON.parse refuses it, and only valid JSON is rewritten, where a candidate token is inside a string
 * exactly when an odd number of unescaped quotes stands before it.
 */
export function parseExactJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (!LONG_NUMBER.test(text)) return value;
  let rewritten = '';
  let copied = 0;
  let inString = false;
  let quote = text.indexOf('"');
  for (const { 0: token, index: at } of text.matchAll(UNSAFE_CANDIDATE)) {
    for (; quote !== -1 && quote < at; quote = text.indexOf('"', quote + 1)) if (!escaped(text, quote)) inString = !inString;
    if (inString || isSafeNumber(token)) continue;
    rewritten += `${text.slice(copied, at)}"${token}"`;
    copied = at + token.length;
  }
  return JSON.parse(rewritten + text.slice(copied));
}

/** Whether the character at `at` follows an odd number of backslashes. */
function escaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - backslashes - 1) === 0x5c) backslashes++;
  return backslashes % 2 === 1;
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
