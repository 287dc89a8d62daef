import { createHmac } from 'node:crypto';
import { verifySignature } from './signature.js';

const body = Buffer.from('{"event":"project.created","data":{"id":36029621652695017}}');
const now = 1_800_000_000;
const sign = (secret: string, t: number, raw = body) => createHmac('sha256', secret).update(`${t}.`).update(raw).digest('hex');

describe(verifySignature.name, () => {
  it('accepts a valid signature', () => {
    expect(verifySignature(`t=${now},v=${sign('s1', now)}`, body, ['s1'], 300, now)).toEqual({ ok: true });
  });

  it('accepts any configured secret (rotation), spaces and unknown elements', () => {
    const header = ` t = ${now} , x=1, v=${sign('new', now)} ,foo`;
    expect(verifySignature(header, body, ['old', 'new'], 300, now)).toEqual({ ok: true });
  });

  it('splits elements on the first "=" only', () => {
    expect(verifySignature(`t=${now},v=${sign('s', now)},k=a=b`, body, ['s'], 300, now)).toEqual({ ok: true });
  });

  it('refuses a wrong secret, a tampered body and a missing header', () => {
    expect(verifySignature(`t=${now},v=${sign('other', now)}`, body, ['s1'], 300, now)).toMatchObject({ ok: false, reason: 'signature does not match' });
    const tampered = Buffer.from(body.toString().replace('017', '018'));
    expect(verifySignature(`t=${now},v=${sign('s1', now)}`, tampered, ['s1'], 300, now)).toMatchObject({ ok: false });
    expect(verifySignature(undefined, body, ['s1'], 300, now)).toMatchObject({ ok: false, reason: 'missing Service-Signature header' });
  });

  it('refuses stale and future timestamps beyond the tolerance, accepts them at its edge', () => {
    const old = now - 301;
    expect(verifySignature(`t=${old},v=${sign('s', old)}`, body, ['s'], 300, now)).toMatchObject({
      reason: 'signature timestamp outside the tolerance window',
    });
    const future = now + 301;
    expect(verifySignature(`t=${future},v=${sign('s', future)}`, body, ['s'], 300, now)).toMatchObject({ ok: false });
    const edge = now - 300;
    expect(verifySignature(`t=${edge},v=${sign('s', edge)}`, body, ['s'], 300, now)).toEqual({ ok: true });
  });

  it('refuses malformed headers', () => {
    expect(verifySignature('v=abc', body, ['s'], 300, now)).toMatchObject({ reason: 'malformed Service-Signature header' });
    expect(verifySignature(`t=${now}`, body, ['s'], 300, now)).toMatchObject({ reason: 'malformed Service-Signature header' });
    expect(verifySignature(`t=${now},v=zz`, body, ['s'], 300, now)).toMatchObject({ reason: 'signature does not match' });
  });
});
