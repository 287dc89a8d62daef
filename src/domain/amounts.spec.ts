import { AMOUNT_MAX_DIGITS, isBoundedDecimal } from './amounts.js';

describe('isBoundedDecimal', () => {
  it('takes amounts of up to 40 digits before and after the point, whatever their notation', () => {
    for (const text of ['0', '-0.00', '12.5', '1e3', '1.25E+2', '12345678901234567.89', '0.30000000000000004', '-5e-5', '.5', '5.', '0e999999999999']) {
      expect([text, isBoundedDecimal(text)]).toEqual([text, true]);
    }
    expect(isBoundedDecimal(`${'9'.repeat(AMOUNT_MAX_DIGITS)}.${'9'.repeat(AMOUNT_MAX_DIGITS)}`)).toBe(true);
    expect(isBoundedDecimal(`1${'0'.repeat(AMOUNT_MAX_DIGITS - 1)}`)).toBe(true);
    expect(isBoundedDecimal(`0.${'0'.repeat(AMOUNT_MAX_DIGITS - 1)}1`)).toBe(true);
    expect(isBoundedDecimal(`0.0000000000000000000000000000000000000000000000000000001e20`)).toBe(true);
  });

  it('refuses what reaches further, and what is no decimal, without building the number', () => {
    for (const text of [
      '1e200000',
      '1e100000000',
      '-1e41',
      '1e-41',
      `1${'0'.repeat(AMOUNT_MAX_DIGITS)}`,
      '1e99999999999999999999',
      '1e-99999999999999999999',
      '',
      '.',
      'e5',
      '1e',
      'NaN',
      'Infinity',
      '0x10',
      '1,5',
      ' 1',
    ]) {
      expect([text, isBoundedDecimal(text)]).toEqual([text, false]);
    }
  });
});
