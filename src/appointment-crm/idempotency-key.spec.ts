import { entryKey, idempotencyKey } from './idempotency-key.js';

describe(idempotencyKey.name, () => {
  it('names the entry, the step and what the step is about', () => {
    expect(idempotencyKey('9007199254740993', 'sale')).toBe('crm-sync:9007199254740993:sale');
    expect(idempotencyKey('42', 'delete', '17')).toBe('crm-sync:42:delete:17');
  });

  it('is the same for the same write, and differs for another file', () => {
    expect(idempotencyKey('42', 'upload', 'Plan.pdf')).toBe(idempotencyKey('42', 'upload', 'Plan.pdf'));
    expect(idempotencyKey('42', 'upload', 'Plan.pdf')).not.toBe(idempotencyKey('42', 'upload', 'Plan 2.pdf'));
    expect(idempotencyKey('42', 'upload', 'Plan.pdf')).not.toBe(idempotencyKey('43', 'upload', 'Plan.pdf'));
  });

  it('stays ASCII for any file name', () => {
    const key = idempotencyKey('42', 'upload', 'Plan ü:1.pdf');
    expect(key).toBe('crm-sync:42:upload:Plan%20%C3%BC%3A1.pdf');
    expect(key).toMatch(/^[\x21-\x7e]+$/);
  });

  it('ends in a hash past 200 characters, still one key per name', () => {
    const long = (tail: string) => idempotencyKey('42', 'upload', `${'x'.repeat(300)}${tail}.pdf`);
    expect(long('a')).toHaveLength(200);
    expect(long('a')).toMatch(/^crm-sync:42:upload:x+~[0-9a-f]{64}$/);
    expect(long('a')).not.toBe(long('b'));
    expect(long('a')).toBe(long('a'));
  });
});

describe(entryKey.name, () => {
  it("is the entry's own key until an admin retries it, then the retry's: a failure the CRM kept does not answer the retry", () => {
    expect(entryKey({ id: '42', retryBase: 0 }, 'sale')).toBe('crm-sync:42:sale');
    expect(entryKey({ id: '42', retryBase: 1 }, 'sale')).toBe('crm-sync:42:retry-1:sale');
    expect(entryKey({ id: '42', retryBase: 3 }, 'delete', '17')).toBe('crm-sync:42:retry-3:delete:17');
    // Every try within one retry sends the same key.
    expect(entryKey({ id: '42', retryBase: 3 }, 'status')).toBe(entryKey({ id: '42', retryBase: 3 }, 'status'));
  });
});
