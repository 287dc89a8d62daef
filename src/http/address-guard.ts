import { lookup as dnsLookup, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';

/**
 * Where a download may go. URLs in webhook payloads and service answers are chosen by whoever can sign a webhook or
 * answer for the service, so without this a download could reach the cloud's metadata address or an internal host.
 */
export interface AddressPolicy {
  /** Plain http and loopback, private, link-local and unique-local addresses allowed (development, demo, tests). */
  allowPrivate: boolean;
}

/** A download refused for where it goes; permanent, since the same URL goes to the same place next time. */
export class RefusedAddressError extends Error {
  constructor(readonly reason: string) {
    super(`refused: ${reason} (DOWNLOADS_ALLOW_PRIVATE_ADDRESSES is off)`);
    this.name = 'RefusedAddressError';
  }
}

/** Why an address may not be reached, or null when it is a public one. */
export function nonPublicReason(address: string): string | null {
  const v4 = isIP(address) === 4 ? address : mappedIpv4(address);
  if (v4 !== null) return ipv4Reason(v4);
  if (isIP(address) !== 6) return `${address} is not an IP address`;
  const words = ipv6Words(address);
  if (words.every((w) => w === 0)) return `${address} is unspecified`;
  if (words.slice(0, 7).every((w) => w === 0) && words[7] === 1) return `${address} is loopback`;
  if ((words[0] & 0xfe00) === 0xfc00) return `${address} is unique-local`;
  if ((words[0] & 0xffc0) === 0xfe80) return `${address} is link-local`;
  if ((words[0] & 0xffc0) === 0xfec0) return `${address} is site-local`;
  if ((words[0] & 0xff00) === 0xff00) return `${address} is multicast`;
  // NAT64 (64:ff9b::/96) carries an IPv4 address in its last 32 bits.
  if (words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0)) {
    return ipv4Reason(`${words[6] >> 8}.${words[6] & 0xff}.${words[7] >> 8}.${words[7] & 0xff}`);
  }
  return null;
}

/** Throws unless the URL may be fetched: https (unless private addresses are allowed), and no non-public IP literal. */
export function checkDownloadUrl(url: string | URL, policy: AddressPolicy): void {
  if (policy.allowPrivate) return;
  const parsed = typeof url === 'string' ? new URL(url) : url;
  if (parsed.protocol !== 'https:') throw new RefusedAddressError(`${parsed.protocol.replace(':', '')} is not https`);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const reason = nonPublicReason(host);
    if (reason) throw new RefusedAddressError(reason);
  }
}

type ResolvedAddress = { address: string; family: 4 | 6 };
type LookupCallback = (err: Error | null, addresses: ResolvedAddress[]) => void;

/**
 * A `lookup` for the HTTP client, used for every connection, redirects included: the address checked is the one
 * the socket then connects to, so a name that resolves to a public address when checked and to a private one when
 * fetched (DNS rebinding) cannot slip through. It answers every address; the client picks what the socket needs.
 */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: object, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...(options as LookupOptions), all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      if (!policy.allowPrivate) {
        for (const { address } of addresses) {
          const reason = nonPublicReason(address);
          if (reason) return callback(new RefusedAddressError(`${hostname} resolves to ${reason}`), []);
        }
      }
      callback(
        null,
        addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 })),
      );
    });
  };
}

/** The RefusedAddressError somewhere in an error's cause chain (axios and follow-redirects wrap what they catch). */
export function refusalIn(err: unknown): RefusedAddressError | null {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof RefusedAddressError) return e;
  }
  return null;
}

function ipv4Reason(address: string): string | null {
  const [a, b] = address.split('.').map(Number) as [number, number];
  if (a === 127) return `${address} is loopback`;
  if (a === 0) return `${address} is unspecified`;
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return `${address} is private`;
  if (a === 100 && b >= 64 && b <= 127) return `${address} is private (shared address space)`;
  if (a === 169 && b === 254) return `${address} is link-local`;
  if (a >= 224) return `${address} is multicast or reserved`;
  return null;
}

/** The IPv4 address inside an IPv4-mapped or IPv4-compatible IPv6 address (`::ffff:127.0.0.1`, `::ffff:7f00:1`). */
export function mappedIpv4(address: string): string | null {
  if (isIP(address) !== 6) return null;
  const words = ipv6Words(address);
  const mapped = words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff;
  const compatible = words.slice(0, 6).every((w) => w === 0) && words[6] !== 0;
  if (!mapped && !compatible) return null;
  return `${words[6] >> 8}.${words[6] & 0xff}.${words[7] >> 8}.${words[7] & 0xff}`;
}

/** The eight 16-bit words of an IPv6 address, with `::` expanded and a dotted IPv4 tail converted. */
export function ipv6Words(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((w) => parseInt(w, 16)));
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}
