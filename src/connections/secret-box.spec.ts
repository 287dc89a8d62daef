import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConnectionsKey, parseConnectionsKey } from '../config/connections-key.js';
import { SecretBox, SecretBoxError } from './secret-box.js';

describe(SecretBox.name, () => {
  const box = new SecretBox(randomBytes(32));

  it('opens what it sealed, with a fresh nonce each time, and hides the value', () => {
    const secret = { token: 'tok-0123456789-abcdef' };
    const a = box.seal(secret, 'service');
    const b = box.seal(secret, 'service');
    expect(a).not.toBe(b);
    expect(a.split('.')[1]).not.toBe(b.split('.')[1]);
    expect(a).not.toContain('tok-0123456789');
    expect(Buffer.from(a.split('.')[2], 'base64url').toString('latin1')).not.toContain('tok-0123456789');
    expect(box.open(a, 'service')).toEqual(secret);
  });

  it("refuses another connection's value, another key, and any tampering", () => {
    const sealed = box.seal({ api_key: 'k' }, 'appointment_crm');
    expect(() => box.open(sealed, 'service')).toThrow(SecretBoxError);
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'appointment_crm')).toThrow('the value does not open with this key');
    const [version, nonce, body] = sealed.split('.');
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] ^= 1;
    expect(() => box.open([version, nonce, flipped.toString('base64url')].join('.'), 'appointment_crm')).toThrow(SecretBoxError);
    expect(() => box.open(`v3.${nonce}.${body}`, 'appointment_crm')).toThrow('not a sealed value of this version');
    expect(() => box.open('v2.AAAA.AAAA', 'appointment_crm')).toThrow('a sealed value of the wrong length');
  });
});

describe('the connections key', () => {
  it('reads 32 bytes as hex or base64, and nothing else', () => {
    const key = randomBytes(32);
    expect(parseConnectionsKey(key.toString('hex'))).toEqual(key);
    expect(parseConnectionsKey(key.toString('base64'))).toEqual(key);
    expect(parseConnectionsKey(`${key.toString('base64url')}\n`)).toEqual(key);
    for (const wrong of ['', 'short', randomBytes(16).toString('hex'), randomBytes(31).toString('base64'), 'z'.repeat(64)]) {
      expect(parseConnectionsKey(wrong)).toBeNull();
    }
  });

  it('generates the key file once (mode 0600) and reads it afterwards', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'crm-sync-key-')), 'nested', 'connections.key');
    const first = loadConnectionsKey(null, path);
    expect(first).toMatchObject({ ok: true, origin: 'generated', path });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const again = loadConnectionsKey(null, path);
    expect(again).toMatchObject({ ok: true, origin: 'file' });
    expect(first.ok && again.ok && again.key.equals(first.key)).toBe(true);
    expect(parseConnectionsKey(readFileSync(path, 'utf8'))).toEqual(first.ok ? first.key : null);
  });

  it('says why there is no key, without quoting it', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'crm-sync-key-')), 'connections.key');
    writeFileSync(path, 'not a key');
    expect(loadConnectionsKey(null, path)).toEqual({ ok: false, problem: `the key file ${path} does not hold a 32-byte key`, path });
    expect(loadConnectionsKey('also-not-a-key', path)).toEqual({ ok: false, problem: 'CONNECTIONS_KEY is not a 32-byte key', path: null });
    expect(loadConnectionsKey(null, '/etc/hostname/crm-sync/connections.key')).toMatchObject({ ok: false, problem: expect.stringContaining('ENOTDIR') });
  });
});
