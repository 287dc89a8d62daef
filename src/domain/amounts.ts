/**
 * How far an amount may reach: digits before the decimal point and after it, once its exponent is applied. An
 * exponent is otherwise unbounded text: `1e100000000` makes a BigInt of a hundred million digits (a replica stalls)
 * and `1e200000` overflows Postgres `numeric` (131,072 digits before the point), so the funnel's sums fail. Forty
 * digits each way holds any real amount, a double's shortest text (`5e-324` aside) and sums of millions of them.
 */
export const AMOUNT_MAX_DIGITS = 40;

const DECIMAL = /^[+-]?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * Whether `text` is a decimal (optionally with an exponent) with at most `maxDigits` significant places before the
 * point and after it. Reads the text only: never builds the number.
 */
export function isBoundedDecimal(text: string, maxDigits = AMOUNT_MAX_DIGITS): boolean {
  const match = DECIMAL.exec(text);
  if (!match) return false;
  const [, whole = '', fraction = '', exponentText = '0'] = match;
  if (whole === '' && fraction === '') return false;
  const digits = whole + fraction;
  const first = digits.search(/[1-9]/);
  if (first < 0) return true;
  const last = digits.length - 1 - [...digits].reverse().findIndex((d) => d !== '0');
  // An exponent of more than 9 digits cannot be in range, and Number() of it would lose nothing that matters.
  if (exponentText.replace(/^[+-]?0*/, '').length > 9) return false;
  const point = whole.length + Number(exponentText);
  return point - first <= maxDigits && last + 1 - point <= maxDigits;
}
