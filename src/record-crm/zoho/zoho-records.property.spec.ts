import fc from 'fast-check';
import { parseExactJson } from '../../http/exact-json.js';
import { OutboundError } from '../../http/outbound-error.js';
import { readZohoAccount } from './zoho-account.js';
import { zohoRecord } from './zoho.client.js';

const runs = { numRuns: 200, interruptAfterTimeLimit: 4000 };
const endpoint = 'GET /{module}';

/** A record of Get Records: an id, lookups `{ id, name }` and fields of any JSON type; or any JSON object. */
const bigId = fc.bigInt({ min: 0n, max: 10n ** 25n });
const record = fc.oneof(
  fc.record(
    {
      id: fc.oneof(bigId.map(String), fc.jsonValue({ maxDepth: 1 })),
      Contact_Name: fc.oneof(fc.record({ id: fc.oneof(bigId.map(String), fc.jsonValue({ maxDepth: 1 })), name: fc.string() }), fc.jsonValue({ maxDepth: 1 })),
      Stage: fc.jsonValue({ maxDepth: 1 }),
    },
    { requiredKeys: [] },
  ),
  fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
);

function outcome<T>(read: () => T): T | OutboundError {
  try {
    return read();
  } catch (err) {
    expect(err).toBeInstanceOf(OutboundError);
    expect((err as OutboundError).failure).toBe('invalid_response');
    return err as OutboundError;
  }
}

describe('Zoho record and account readers (properties)', () => {
  it('reads any record as one with an exact string id and lookup ids, or refuses it (no id) with an OutboundError', () => {
    fc.assert(
      fc.property(record, (item) => {
        const read = outcome(() => zohoRecord(endpoint, item as Record<string, unknown>));
        if (read instanceof OutboundError) return;
        expect(typeof read.id).toBe('string');
        // A lookup id that is a number or a string comes out as its exact string; anything else as sent.
        const sent = (item as { Contact_Name?: { id?: unknown } }).Contact_Name;
        const lookup = read.Contact_Name as { id?: unknown } | null | undefined;
        if (sent && typeof sent === 'object' && !Array.isArray(sent) && (typeof sent.id === 'string' || Number.isSafeInteger(sent.id))) {
          expect(lookup!.id).toBe(String(sent.id));
        }
      }),
      { ...runs, examples: [[{}], [{ id: {} }], [{ id: '1', Contact_Name: { id: [] } }]] },
    );
  });

  it('keeps a record id and its lookup id of any size digit for digit, when written as bare JSON numbers', () => {
    fc.assert(
      fc.property(bigId, bigId, (id, contact) => {
        const item = parseExactJson(`{"id":${id},"Contact_Name":{"id":${contact},"name":"A"}}`) as Record<string, unknown>;
        expect(zohoRecord(endpoint, item)).toEqual({ id: id.toString(), Contact_Name: { id: contact.toString(), name: 'A' } });
      }),
      runs,
    );
  });

  it('reads who is connected from any answers: an account, none, or an OutboundError', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 }), async (org, users) => {
        const read = await readZohoAccount((_e, path) => Promise.resolve({ status: 200, data: path === '/org' ? org : users })).catch((err: unknown) => {
          expect(err).toBeInstanceOf(OutboundError);
          return 'refused' as const;
        });
        if (read && read !== 'refused') {
          expect(typeof read.orgId).toBe('string');
          expect(typeof read.orgName).toBe('string');
        }
      }),
      {
        ...runs,
        examples: [
          [{ org: [{ id: {} }] }, null],
          [{ org: [{ id: '1' }] }, { users: 'x' }],
          [{ org: [null] }, null],
        ],
      },
    );
  });
});
