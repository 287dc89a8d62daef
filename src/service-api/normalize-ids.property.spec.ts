import fc from 'fast-check';
import { parseExactJson } from '../http/exact-json.js';
import { normalizeIds } from './normalize-ids.js';

const runs = { numRuns: 300, interruptAfterTimeLimit: 4000 };
const isIdKey = (key: string) => key === 'id' || key.endsWith('_id');

/** JSON as the exact parser gives it: keys that are ids (and `__proto__`) over-represented, ids beyond 2^53 as strings. */
const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('id', 'project_id', 'drawing_id', '_id', 'ids', 'idx', '__proto__', 'constructor'));
const leaf = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.string({ maxLength: 6 }),
  fc.double(),
  fc.integer(),
  fc.bigInt({ min: 0n, max: 10n ** 25n }).map((n) => (Number.isSafeInteger(Number(n)) ? Number(n) : n.toString())),
);
const json = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(key, tie('node'), { maxKeys: 5, noNullPrototype: true })),
})).node;

/** Walks the input and its normalised copy side by side: same shape, ids as their decimal string, everything else as it was. */
function expectNormalised(input: unknown, output: unknown, key?: string): void {
  if (Array.isArray(input)) {
    expect(Array.isArray(output)).toBe(true);
    expect((output as unknown[]).length).toBe(input.length);
    input.forEach((item, i) => expectNormalised(item, (output as unknown[])[i], key));
  } else if (input !== null && typeof input === 'object') {
    expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
    expect(Object.keys(output as object)).toEqual(Object.keys(input));
    for (const [k, v] of Object.entries(input)) expectNormalised(v, Object.getOwnPropertyDescriptor(output, k)?.value, k);
  } else if (typeof input === 'number' && Number.isInteger(input) && key !== undefined && isIdKey(key)) {
    expect(output).toBe(String(input));
    if (Number.isSafeInteger(input)) expect(BigInt(output as string)).toBe(BigInt(input));
  } else {
    expect(output).toBe(input);
  }
}

describe('normalizeIds (properties)', () => {
  it('keeps the shape and every value, and turns integer ids (also in arrays) into their decimal strings', () => {
    fc.assert(
      fc.property(json, (value) => expectNormalised(value, normalizeIds(value))),
      runs,
    );
  });

  it('is idempotent and leaves its input alone', () => {
    fc.assert(
      fc.property(json, (value) => {
        const before = JSON.stringify(value);
        const once = normalizeIds(value);
        expect(JSON.stringify(value)).toBe(before);
        expect(normalizeIds(once)).toEqual(once);
      }),
      runs,
    );
  });

  it('gives every integer id of a raw body as its exact digits, of any size', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.constantFrom('id', 'project_id', 'record_crm_record_id'), (n, name) => {
        const raw = `{"items":[{"${name}":${n}},{"nested":{"${name}":[${n}, 7]}}],"count":${n}}`;
        const value = normalizeIds<{ items: [Record<string, unknown>, { nested: Record<string, unknown> }] }>(parseExactJson(raw));
        expect(value.items[0][name]).toBe(n.toString());
        expect(value.items[1].nested[name]).toEqual([n.toString(), '7']);
      }),
      runs,
    );
  });
});
