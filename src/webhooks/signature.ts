import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/**
 * Checks a `Service-Signature: t=<ts>,v=<hex>` header as the spec says: split on `,`, each element on its first `=`,
 * ignore unknown elements and surrounding spaces; HMAC-SHA256 with the webhook secret over `<t>.<raw body>`, hex;
 * constant-time compare; any of the configured secrets may match (rotation); and `|now - t|` within the tolerance.
 */
export function verifySignature(
  header: string | undefined,
  rawBody: Buffer,
  secrets: readonly string[],
  toleranceSeconds: number,
  nowSeconds = Math.floor(Date.now() / 1000),
): SignatureCheck {
  if (!header || header.trim() === '') return { ok: false, reason: 'missing Service-Signature header' };
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const element of header.split(',')) {
    const at = element.indexOf('=');
    if (at < 0) continue;
    const key = element.slice(0, at).trim();
    const value = element.slice(at + 1).trim();
    if (key === 't') timestamp = value;
    else if (key === 'v') signatures.push(value);
  }
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || signatures.length === 0) {
    return { ok: false, reason: 'malformed Service-Signature header' };
  }
  if (Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) {
    return { ok: false, reason: 'signature timestamp outside the tolerance window' };
  }
  for (const secret of secrets) {
    const expected = createHmac('sha256', hmacKey(secret)).update(`${timestamp}.`).update(rawBody).digest();
    for (const candidate of signatures) {
      const given = /^[0-9a-fA-F]{64}$/.test(candidate) ? Buffer.from(candidate, 'hex') : null;
      if (given && timingSafeEqual(given, expected)) return { ok: true };
    }
  }
  return { ok: false, reason: 'signature does not match' };
}

const hmacKeys = new Map<string, KeyObject>();

/** The secret as a key object, made once: turning the string into a key is a fifth of an HMAC of a webhook. */
function hmacKey(secret: string): KeyObject {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    hmacKeys.set(secret, key);
  }
  return key;
}
