import { createHash } from 'node:crypto';
import { sessionMacKey, sessionSecretFrom } from './session-secret.js';

const connectionsKey = Buffer.alloc(32, 3);
const fromFile = { ok: true as const, key: connectionsKey, origin: 'file' as const, path: '/data/connections.key' };
const noKey = { ok: false as const, problem: 'no key', path: null };

describe(sessionSecretFrom.name, () => {
  it('takes SESSION_SECRET first, in hex or base64', () => {
    const secret = Buffer.alloc(32, 5);
    expect(sessionSecretFrom(secret.toString('hex'), fromFile)).toEqual({ key: secret, origin: 'SESSION_SECRET' });
    expect(sessionSecretFrom(secret.toString('base64'), fromFile)).toEqual({ key: secret, origin: 'SESSION_SECRET' });
  });

  it('else derives a sub-key of the connections key: stable, and not the connections key itself', () => {
    const first = sessionSecretFrom(null, fromFile);
    expect(first.origin).toBe('connections key');
    expect(first.key).toHaveLength(32);
    expect(first.key.equals(connectionsKey)).toBe(false);
    expect(sessionSecretFrom(null, fromFile).key.equals(first.key)).toBe(true);
    expect(sessionSecretFrom(null, { ...fromFile, key: Buffer.alloc(32, 4) }).key.equals(first.key)).toBe(false);
  });

  it('else a random key of this process', () => {
    const a = sessionSecretFrom(null, noKey);
    expect(a.origin).toBe('this process only');
    expect(a.key.equals(sessionSecretFrom(null, noKey).key)).toBe(false);
  });
});

describe(sessionMacKey.name, () => {
  const hash = createHash('sha256').update('some-admin-token-0123').digest();

  it('depends on the secret and the token hash, and is never the hash itself', () => {
    const secret = Buffer.alloc(32, 1);
    const key = sessionMacKey(secret, hash);
    expect(key.equals(hash)).toBe(false);
    expect(sessionMacKey(Buffer.alloc(32, 2), hash).equals(key)).toBe(false);
    expect(sessionMacKey(secret, createHash('sha256').update('another-token-0123456').digest()).equals(key)).toBe(false);
    expect(sessionMacKey(secret, hash).equals(key)).toBe(true);
  });
});
