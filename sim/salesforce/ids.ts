/**
 * Salesforce record ids: 15 case-sensitive characters, the first three the object's key prefix, and an 18-character
 * form that appends a case-insensitive checksum of three characters (one per block of five: a bit per upper-case
 * letter, read into "A-Z0-5"). REST answers carry the 18-character form and accept either.
 * (SOAP API Developer Guide, Field Types: "ID" — https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/field_types.htm)
 */
const CHECKSUM_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function checksumOf(id15: string): string {
  let suffix = '';
  for (let block = 0; block < 3; block++) {
    let flags = 0;
    for (let i = 0; i < 5; i++) {
      const c = id15[block * 5 + i];
      if (c >= 'A' && c <= 'Z') flags |= 1 << i;
    }
    suffix += CHECKSUM_ALPHABET[flags];
  }
  return suffix;
}

const ID_SHAPE = /^[a-zA-Z0-9]{15}(?:[A-Z0-5]{3})?$/;

export function isIdShape(value: string): boolean {
  return ID_SHAPE.test(value);
}

/** The 18-character form of a 15- or 18-character id; null for anything else or a wrong checksum. */
export function to18(value: string): string | null {
  if (!isIdShape(value)) return null;
  const id15 = value.slice(0, 15);
  const id18 = id15 + checksumOf(id15);
  if (value.length === 18 && value.toUpperCase().slice(15) !== id18.slice(15)) return null;
  return id18;
}

/** Makes ids for one org: key prefix, a pod-like "5g", then a counter in base 62 (so ids mix cases, as real ones do). */
export class IdFactory {
  private counter = 9000n;

  next(keyPrefix: string): string {
    this.counter += 7919n;
    let n = this.counter;
    let body = '';
    while (n > 0n) {
      body = BASE62[Number(n % 62n)] + body;
      n /= 62n;
    }
    const id15 = `${keyPrefix}5g00000${body.padStart(5, '0')}`.slice(0, 15);
    return id15 + checksumOf(id15);
  }
}
