import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * `v2`: the associated data binds the value to its purpose and to the plain settings it goes with (sealed-binding.ts).
 * `v1`: before that, the connection's name alone; opened only to re-seal a row sealed before the upgrade.
 */
type Version = 'v1' | 'v2';
const VERSION: Version = 'v2';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** The sealed value could not be opened: another key, another connection's value, or tampered with. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/**
 * AES-256-GCM over a JSON value, with a fresh 96-bit nonce per seal and associated data saying what the value is for
 * (sealed-binding.ts), so a sealed value copied to another row, or kept after its plain settings changed, does not
 * open. Sealed form: `v2.<nonce>.<ciphertext+tag>` (base64url).
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
  }

  seal(value: unknown, associatedData: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return [VERSION, nonce.toString('base64url'), body.toString('base64url')].join('.');
  }

  open<T>(sealed: string, associatedData: string): T {
    return this.openAs<T>(VERSION, sealed, associatedData);
  }

  /** A value sealed before the associated data bound its settings (`v1`), to be sealed again at once. */
  openLegacy<T>(sealed: string, associatedData: string): T {
    return this.openAs<T>('v1', sealed, associatedData);
  }

  static versionOf(sealed: string): string {
    return sealed.split('.', 1)[0];
  }

  private openAs<T>(expected: Version, sealed: string, associatedData: string): T {
    const [version, nonceText, bodyText, ...rest] = sealed.split('.');
    if (version !== expected || !nonceText || !bodyText || rest.length > 0) throw new SecretBoxError('not a sealed value of this version');
    const nonce = Buffer.from(nonceText, 'base64url');
    const body = Buffer.from(bodyText, 'base64url');
    if (nonce.length !== NONCE_BYTES || body.length < TAG_BYTES) throw new SecretBoxError('a sealed value of the wrong length');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, nonce);
      decipher.setAAD(Buffer.from(associatedData, 'utf8'));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      const text = Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      return JSON.parse(text) as T;
    } catch {
      throw new SecretBoxError('the value does not open with this key');
    }
  }
}
