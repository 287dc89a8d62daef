import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { verifySignature } from './signature.js';

const runs = { numRuns: 300, interruptAfterTimeLimit: 4000 };
const TOLERANCE = 300;
const now = 1_800_000_000;

const sign = (secret: string, t: string, body: Buffer) => createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
const body = fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes));
const secrets = fc.array(fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }), { minLength: 1, maxLength: 4 });
/** Timestamps within the tolerance of `now`, edges included. */
const timestamp = fc.integer({ min: now - TOLERANCE, max: now + TOLERANCE }).map(String);

/** The header as the service writes it, with the signature among decoys and the elements in any order. */
const header = (t: string, signatures: string[], extra: string[] = []) => [`t=${t}`, ...signatures.map((v) => `v=${v}`), ...extra].join(',');

describe('verifySignature (properties)', () => {
  it('accepts a header signed with any of the configured secrets, among decoy signatures and unknown elements', () => {
    fc.assert(
      fc.property(
        secrets,
        fc.nat(),
        body,
        timestamp,
        fc.array(
          fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex')),
          { maxLength: 3 },
        ),
        fc.boolean(),
        (list, pick, raw, t, decoys, upper) => {
          const signature = sign(list[pick % list.length], t, raw);
          const h = header(t, [...decoys, upper ? signature.toUpperCase() : signature], ['x=1', ' foo ']);
          expect(verifySignature(h, raw, list, TOLERANCE, now)).toEqual({ ok: true });
        },
      ),
      runs,
    );
  });

  it('refuses, with a reason, a body, timestamp or signature changed by one character', () => {
    fc.assert(
      fc.property(
        secrets,
        body.filter((b) => b.length > 0),
        timestamp,
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        fc.constantFrom('body', 'timestamp', 'signature'),
        fc.string({ minLength: 1, maxLength: 1 }),
        (list, raw, t, at, delta, part, replacement) => {
          const signature = sign(list[0], t, raw);
          let h = header(t, [signature]);
          let sent = raw;
          if (part === 'body') {
            sent = Buffer.from(raw);
            sent[at % sent.length] = (sent[at % sent.length] + delta) % 256;
          } else {
            const value = part === 'timestamp' ? t : signature;
            const i = at % value.length;
            // Another character, also after case folding: hex is read in either case.
            fc.pre(replacement.toLowerCase() !== value[i].toLowerCase());
            const changed = value.slice(0, i) + replacement + value.slice(i + 1);
            h = part === 'timestamp' ? header(changed, [signature]) : header(t, [changed]);
          }
          const check = verifySignature(h, sent, list, TOLERANCE, now);
          expect(check.ok).toBe(false);
          expect(check).toHaveProperty('reason', expect.stringMatching(/\S/));
        },
      ),
      runs,
    );
  });

  it('refuses timestamps outside the tolerance, however well signed', () => {
    const outside = fc.oneof(fc.integer({ min: TOLERANCE + 1, max: 10 ** 9 }), fc.integer({ min: -(10 ** 9), max: -(TOLERANCE + 1) }));
    fc.assert(
      fc.property(secrets, body, outside, (list, raw, offset) => {
        const t = String(now + offset);
        expect(verifySignature(header(t, [sign(list[0], t, raw)]), raw, list, TOLERANCE, now)).toEqual({
          ok: false,
          reason: 'signature timestamp outside the tolerance window',
        });
      }),
      runs,
    );
  });

  it('answers any header, of any characters, without throwing', () => {
    const pieces = fc.constantFrom('t', 'v', '=', ',', ' ', '\t', '1800000000', 'v1', 'a'.repeat(64), '0'.repeat(64), '-', '\u0000', '\uD800');
    const headerLike = fc.array(fc.oneof(pieces, fc.string({ maxLength: 8 })), { maxLength: 30 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 80 }), headerLike, fc.constant(undefined)),
        secrets,
        body,
        (h, list, raw) => {
          const check = verifySignature(h, raw, list, TOLERANCE, now);
          if (!check.ok) expect(check.reason).toMatch(/\S/);
          else expect(h).toMatch(/v=/);
        },
      ),
      { ...runs, numRuns: 250 },
    );
  });
});
