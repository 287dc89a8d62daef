import fc from 'fast-check';
import { parseExactJson } from '../../http/exact-json.js';
import { OutboundError } from '../../http/outbound-error.js';
import { envelopeItems, firstResultId, zohoError, zohoId } from './zoho.client.js';

const runs = { numRuns: 300, interruptAfterTimeLimit: 4000 };
const endpoint = 'POST /Notes';

/** Zoho answers: its documented shapes with fields of any JSON type, and any JSON at all. */
const item = fc.record(
  {
    code: fc.oneof(fc.constantFrom('SUCCESS', 'INVALID_DATA', 'INVALID_TOKEN', 'OAUTH_SCOPE_MISMATCH'), fc.jsonValue({ maxDepth: 1 })),
    status: fc.oneof(fc.constantFrom('success', 'error'), fc.jsonValue({ maxDepth: 1 })),
    message: fc.jsonValue({ maxDepth: 1 }),
    details: fc.oneof(
      fc.record({ id: fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 25n }).map(String), fc.jsonValue({ maxDepth: 1 })) }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
  },
  { requiredKeys: [] },
);
const answer = fc.oneof(
  fc.record(
    {
      data: fc.oneof(fc.array(item, { maxLength: 3 }), fc.jsonValue({ maxDepth: 2 })),
      info: fc.jsonValue({ maxDepth: 2 }),
      code: fc.jsonValue({ maxDepth: 1 }),
    },
    { requiredKeys: [] },
  ),
  item,
  fc.jsonValue(),
);

/** What a reader may do with any answer: give its result, or an OutboundError (never a TypeError of a missing field). */
function outcome<T>(read: () => T): T | OutboundError {
  try {
    return read();
  } catch (err) {
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as OutboundError).failure).toMatch(/^(invalid_response|rejected)$/);
    return err as OutboundError;
  }
}

describe('Zoho answer readers (properties)', () => {
  it('reads an error from any answer: a code and one line of at most 400 characters, the failure from the status', () => {
    fc.assert(
      fc.property(fc.constantFrom(400, 401, 403, 404, 405, 413, 422), answer, (status, data) => {
        const error = zohoError(status, data);
        expect(typeof error.code).toBe('string');
        expect(error.text.length).toBeLessThanOrEqual(400);
        expect(error.text.startsWith(`${error.code}:`) || error.text.length === 400).toBe(true);
        expect(error.failure).toBe(status === 404 ? 'not_found' : status === 401 || status === 403 ? 'unauthorized' : 'rejected');
        const body = data as { code?: unknown; data?: Array<{ code?: unknown }> };
        if (data !== null && typeof data === 'object' && !Array.isArray(data) && typeof body.code === 'string') expect(error.code).toBe(body.code);
        else if (Array.isArray(body?.data) && body.data[0] && typeof body.data[0] === 'object' && typeof body.data[0].code === 'string') {
          expect(error.code).toBe(body.data[0].code);
        }
      }),
      runs,
    );
  });

  it('reads the items and the created id of any answer, or refuses it with an OutboundError', () => {
    fc.assert(
      fc.property(answer, (data) => {
        const items = outcome(() => envelopeItems(endpoint, data));
        if (!(items instanceof OutboundError)) for (const i of items) expect(i !== null && typeof i === 'object' && !Array.isArray(i)).toBe(true);
        const id = outcome(() => firstResultId(endpoint, data as never));
        if (typeof id === 'string') expect((data as { data: Array<{ status: string }> }).data[0].status).toBe('success');
        outcome(() => zohoId(endpoint, (data as { id?: unknown } | null)?.id));
      }),
      {
        ...runs,
        // Found by this property: `data` not a list, and an id that is no id, threw TypeErrors.
        examples: [[{ data: {} }], [{ data: 5 }], [{ data: 'text' }], [{ data: [{ status: 'success', details: { id: {} } }] }], [{ data: [null] }]],
      },
    );
  });

  it('gives a created id of any size digit for digit', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), (n) => {
        const answer = parseExactJson(`{"data":[{"code":"SUCCESS","details":{"id":${n}},"status":"success"}]}`);
        expect(firstResultId(endpoint, answer as never)).toBe(n.toString());
      }),
      runs,
    );
  });
});
