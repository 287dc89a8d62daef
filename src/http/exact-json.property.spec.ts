import fc from 'fast-check';
import { isSafeNumber, parse } from 'lossless-json';
import { idString, jsonInteger, parseExactJson, stringifyExactJson } from './exact-json.js';

/** Run options of every property here: a few hundred cases, and never more than a few seconds. */
const runs = { numRuns: 300, interruptAfterTimeLimit: 4000 };

/** Integers of any size up to 10^30, both signs, with the edges of a double's exact range over-represented. */
const integer = fc.oneof(
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
  fc.bigInt({ min: 2n ** 53n - 3n, max: 2n ** 53n + 3n }),
  fc.integer({ min: 0, max: 80 }).map((n) => 2n ** BigInt(n)),
  fc.integer({ min: 15, max: 30 }).map((n) => 10n ** BigInt(n)),
);

/** What a parsed integer says, as digits: a safe number, or the exact string the parser keeps beyond 2^53. */
const digitsOf = (value: unknown): string => {
  if (typeof value === 'number') {
    expect(Number.isSafeInteger(value)).toBe(true);
    return String(value);
  }
  expect(typeof value).toBe('string');
  return value as string;
};

/**
 * `actual` is what JSON.parse gives (`expected`), except that a number a double cannot hold exactly (an integer
 * beyond 2^53, a decimal with more digits than a double keeps) may come as its text instead.
 */
function expectSameExactly(actual: unknown, expected: unknown, path = '$'): void {
  if (typeof expected === 'number' && typeof actual === 'string') {
    const exact = !Number.isInteger(expected) || Number.isSafeInteger(expected);
    if (exact && String(expected) === actual) throw new Error(`${path}: ${actual} could have stayed a number`);
    expect([path, Number(actual)]).toEqual([path, expected]);
  } else if (Array.isArray(expected)) {
    expect(Array.isArray(actual)).toBe(true);
    expect([path, (actual as unknown[]).length]).toEqual([path, expected.length]);
    expected.forEach((item, i) => expectSameExactly((actual as unknown[])[i], item, `${path}[${i}]`));
  } else if (expected !== null && typeof expected === 'object') {
    expect([path, Object.keys(actual as object)]).toEqual([path, Object.keys(expected)]);
    for (const [key, item] of Object.entries(expected)) expectSameExactly((actual as Record<string, unknown>)[key], item, `${path}.${key}`);
  } else {
    expect([path, actual]).toEqual([path, expected]);
  }
}

describe('exact JSON (properties)', () => {
  it('keeps every digit of an integer of any size, bare, in an object and in an array', () => {
    fc.assert(
      fc.property(integer, (n) => {
        const digits = n.toString();
        expect(digitsOf(parseExactJson(digits))).toBe(digits);
        expect(digitsOf((parseExactJson(`{"id":${digits}}`) as { id: unknown }).id)).toBe(digits);
        expect(digitsOf((parseExactJson(`[ 1, ${digits} ]`) as unknown[])[1])).toBe(digits);
        expect(idString((parseExactJson(`{"id": ${digits}}`) as { id: unknown }).id)).toBe(digits);
      }),
      // Found by this property: a top-level number, and integers beyond 2^53 that a double happens to hold exactly.
      { ...runs, examples: [[36029621652695017n], [9007199254740994n], [2n ** 60n], [10n ** 20n]] },
    );
  });

  it('round-trips ids digit for digit through stringify and parse', () => {
    fc.assert(
      fc.property(fc.array(integer, { maxLength: 5 }), (ns) => {
        const ids = ns.map((n) => n.toString());
        const text = stringifyExactJson({ project_id: jsonInteger(ids[0] ?? '0'), ids: ids.map((id) => jsonInteger(id)), names: ids });
        const back = parseExactJson(text) as { project_id: unknown; ids: unknown[]; names: string[] };
        expect(digitsOf(back.project_id)).toBe(ids[0] ?? '0');
        expect(back.ids.map(digitsOf)).toEqual(ids);
        expect(back.names).toEqual(ids);
      }),
      runs,
    );
  });

  it('reads any JSON as JSON.parse does, but for numbers a double cannot hold, which come as their exact text', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expectSameExactly(parseExactJson(text), JSON.parse(text));
      }),
      runs,
    );
  });

  it('reads any JSON with numbers of any size exactly as the lossless-json parser did (which it replaced), and refuses what it refused but a key given twice', () => {
    // The parser before: JSON.parse for text without a long number token, lossless-json's parser for the rest.
    const losslessJson = (text: string) =>
      /(?:^|[:[,])\s*-?\d[\d.eE+-]{15,}/.test(text)
        ? parse(text, undefined, (value: string) => (isSafeNumber(value) ? Number(value) : value))
        : JSON.parse(text);
    const number = fc.oneof(
      integer.map(String),
      fc.tuple(integer, fc.nat({ max: 999_999_999 }), fc.integer({ min: -400, max: 400 })).map(([i, f, e]) => `${i}.${f}e${e}`),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
    );
    // JSON.stringify's text with numbers of any size put in place of some values, and strings that look like numbers.
    const text = fc
      .tuple(fc.json({ maxDepth: 3 }), fc.array(number, { minLength: 1, maxLength: 6 }), fc.array(fc.stringMatching(/^-?\d{10,25}$/), { maxLength: 2 }))
      .map(
        ([json, numbers, texts]) => `[${json},${numbers.join(',')},${texts.map((t) => JSON.stringify(`id ${t} "${t}"`)).join(',') || '0'},{"n":${numbers[0]}}]`,
      );
    fc.assert(
      fc.property(text, (t) => {
        expect(parseExactJson(t)).toEqual(losslessJson(t));
      }),
      runs,
    );
    const broken = fc.tuple(fc.json({ maxDepth: 2 }), number, fc.nat()).map(([json, n, at]) => {
      const whole = `[${json},${n}]`;
      return whole.slice(0, at % whole.length) + whole.slice((at % whole.length) + 1);
    });
    fc.assert(
      fc.property(broken, (t) => {
        let lossless: unknown = 'refused';
        let exact: unknown = 'refused';
        try {
          lossless = losslessJson(t);
        } catch (err) {
          // lossless-json refused a key given twice; JSON.parse, and so parseExactJson, keeps the last (a tolerant reader).
          if (/Duplicate key/.test(String(err))) lossless = 'duplicate key';
        }
        try {
          exact = parseExactJson(t);
        } catch (err) {
          expect(err).toBeInstanceOf(SyntaxError);
        }
        if (lossless === 'duplicate key') expect(exact).not.toBe('refused');
        else expect(exact).toEqual(lossless);
      }),
      runs,
    );
  });

  it('reads any JSON value written by JSON.stringify back to the same value, with big integers as their digits', () => {
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, tie('leaf'), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(fc.string(), tie('node'), { maxKeys: 4 })),
      leaf: fc.oneof(fc.constant(null), fc.boolean(), fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true }), integer),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const text = stringifyExactJson(v);
        const expected = JSON.parse(
          JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? (Number.isSafeInteger(Number(x)) ? Number(x) : x.toString()) : x)),
        );
        expectSameExactly(parseExactJson(text), expected);
      }),
      runs,
    );
  });

  it('answers any string with a value or a SyntaxError, quickly', () => {
    const almostJson = fc
      .tuple(fc.json({ maxDepth: 2 }), fc.nat(), fc.string({ maxLength: 3 }))
      .map(([text, at, junk]) => text.slice(0, at % (text.length + 1)) + junk + text.slice(at % (text.length + 1)));
    const longNumbers = fc
      .array(fc.constantFrom('1', '0', '-', '.', 'e', 'E', '+', ',', ':', '[', ']', '{', '}', '"', ' '), { maxLength: 60 })
      .map((cs) => `[1234567890123456${cs.join('')}`);
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), almostJson, longNumbers), (text) => {
        const started = Date.now();
        try {
          parseExactJson(text);
        } catch (err) {
          expect(err).toBeInstanceOf(SyntaxError);
        }
        expect(Date.now() - started).toBeLessThan(1000);
      }),
      { ...runs, numRuns: 250 },
    );
  });

  it('turns only ids into id strings, and refuses the rest with a TypeError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), integer, fc.integer()), (value) => {
        let text: string;
        try {
          text = idString(value);
        } catch (err) {
          expect(err).toBeInstanceOf(TypeError);
          return;
        }
        if (typeof value !== 'string') expect(BigInt(text)).toBe(BigInt(value as number | bigint));
      }),
      runs,
    );
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.stringMatching(/^-?\d{1,25}$/)), (text) => {
        if (/^-?(0|[1-9]\d*)$/.test(text)) expect(jsonInteger(text).toString()).toBe(text);
        else expect(() => jsonInteger(text)).toThrow(TypeError);
      }),
      // Found by this property: leading zeros threw LosslessNumber's plain Error.
      { ...runs, examples: [['00'], ['007'], ['-0'], ['']] },
    );
  });
});
