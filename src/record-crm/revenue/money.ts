import { LosslessNumber } from 'lossless-json';
import { isBoundedDecimal } from '../../domain/amounts.js';

/**
 * Money as integer cents (bigint), so that sums, discounts and taxes carry no binary fraction: 0.1 + 0.2 is 30 cents,
 * whatever a double makes of it. Amounts arrive as numbers, or as exact decimal text when a double cannot hold them.
 */

/** Wider than an amount's bound (AMOUNT_MAX_DIGITS): sums of amounts are read here too. */
const PARSED_MAX_DIGITS = 100;

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** An exact decimal as digits and a power of ten: `12.5` is { units: 125n, scale: 1 }. */
export interface Decimal {
  units: bigint;
  scale: number;
}

export function parseDecimal(value: number | string): Decimal {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError(`not an amount: ${value}`);
  // String(number) is the shortest text that reads back as that double: 0.30000000000000004 stays what it is.
  const text = String(value).trim();
  const match = DECIMAL.exec(text);
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) throw new TypeError(`not an amount: ${text.slice(0, 40)}`);
  // Checked on the text, before a BigInt of the exponent's size is built (1e100000000 would stall the process).
  if (!isBoundedDecimal(text, PARSED_MAX_DIGITS)) throw new TypeError(`not an amount: ${text.slice(0, 40)} reaches beyond ${PARSED_MAX_DIGITS} digits`);
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  let units = BigInt(`${whole}${fraction}` || '0');
  let scale = fraction.length - Number(exponent);
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { units: sign === '-' ? -units : units, scale };
}

/** Rounds `numerator / denominator` half away from zero. */
export function divideRounded(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const rounded = (n * 2n + d) / (d * 2n);
  return negative ? -rounded : rounded;
}

/** Rounds `numerator / denominator` up (towards +infinity) for positive operands. */
export function divideUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator;
}

/** An amount in cents, rounded half away from zero at the cent (as a currency field with 2 decimals is). */
export function toCents(value: number | string): bigint {
  const { units, scale } = parseDecimal(value);
  return scale <= 2 ? units * 10n ** BigInt(2 - scale) : divideRounded(units, 10n ** BigInt(scale - 2));
}

/** Cents as decimal text with two decimals: -1234n is `-12.34`. */
export function centsText(cents: bigint): string {
  const negative = cents < 0n;
  const digits = (negative ? -cents : cents).toString().padStart(3, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** Cents as a bare JSON number written digit for digit (no double in between), for Zoho's currency fields. */
export function jsonCents(cents: bigint): LosslessNumber {
  return new LosslessNumber(centsText(cents));
}

/** A decimal as a bare JSON number, digit for digit (a quantity). */
export function jsonDecimal(value: Decimal): LosslessNumber {
  const negative = value.units < 0n;
  const digits = (negative ? -value.units : value.units).toString().padStart(value.scale + 1, '0');
  const text = value.scale === 0 ? digits : `${digits.slice(0, -value.scale)}.${digits.slice(-value.scale)}`;
  return new LosslessNumber(`${negative ? '-' : ''}${text}`);
}

/** The cents of `priceCents × quantity`, rounded at the cent. */
export function timesQuantity(priceCents: bigint, quantity: Decimal): bigint {
  return divideRounded(priceCents * quantity.units, 10n ** BigInt(quantity.scale));
}
