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

/**
 * IPv4 ranges that are not global unicast: IANA's IPv4 Special-Purpose Address Registry
 * (https://www.iana.org/assignments/iana-ipv4-special-registry/, entries not "Globally Reachable"), multicast and the
 * reserved block. The first range that holds an address names why it is refused.
 */
const IPV4_REFUSED: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'private (shared address space)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation (TEST-NET-1)'],
  ['192.88.99.0', 24, '6to4 relay anycast (deprecated)'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation (TEST-NET-2)'],
  ['203.0.113.0', 24, 'documentation (TEST-NET-3)'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

/**
 * IPv6: only global unicast (2000::/3) may be reached, less the ranges of IANA's IPv6 Special-Purpose Address Registry
 * (https://www.iana.org/assignments/iana-ipv6-special-registry/) that are not globally reachable. 6to4 and Teredo
 * carry an IPv4 address crm-sync cannot see the policy of, so they are refused whole.
 */
const IPV6_REFUSED: Array<[string, number, string]> = [
  ['2001::', 32, 'Teredo'],
  ['2001:2::', 48, 'benchmarking'],
  ['2001:10::', 28, 'ORCHID (deprecated)'],
  ['2001:20::', 28, 'ORCHIDv2'],
  ['2001:db8::', 32, 'documentation'],
  ['2002::', 16, '6to4'],
  ['3fff::', 20, 'documentation'],
];

/** Outside 2000::/3 (global unicast), the well-known kinds, named; the rest is "not global unicast". */
const IPV6_OUTSIDE_GLOBAL: Array<[string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b:1::', 48, 'NAT64 for local use'],
  ['100::', 64, 'discard-only'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

/** Why an address may not be reached, or null when it is a global unicast one. */
export function nonPublicReason(address: string): string | null {
  const v4 = isIP(address) === 4 ? address : mappedIpv4(address);
  if (v4 !== null) return ipv4Reason(v4);
  if (isIP(address) !== 6) return `${address} is not an IP address`;
  const words = ipv6Words(address);
  // NAT64 (64:ff9b::/96) carries an IPv4 address in its last 32 bits.
  if (words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0)) {
    return ipv4Reason(`${words[6] >> 8}.${words[6] & 0xff}.${words[7] >> 8}.${words[7] & 0xff}`);
  }
  const bits = ipv6Bits(words);
  const named = (ranges: Array<[string, number, string]>) => ranges.find(([base, length]) => inPrefix(bits, ipv6Bits(ipv6Words(base)), length, 128));
  const outside = named(IPV6_OUTSIDE_GLOBAL);
  if (outside) return `${address} is ${outside[2]}`;
  if (words[0] >> 13 !== 0b001) return `${address} is not global unicast`;
  const special = named(IPV6_REFUSED);
  return special ? `${address} is ${special[2]}` : null;
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
  const bits = ipv4Bits(address);
  if (bits === 0xffffffffn) return `${address} is broadcast`;
  const range = IPV4_REFUSED.find(([base, length]) => inPrefix(bits, ipv4Bits(base), length, 32));
  return range ? `${address} is ${range[2]}` : null;
}

function ipv4Bits(address: string): bigint {
  return address.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function ipv6Bits(words: number[]): bigint {
  return words.reduce((acc, word) => (acc << 16n) | BigInt(word), 0n);
}

function inPrefix(bits: bigint, base: bigint, length: number, width: number): boolean {
  const shift = BigInt(width - length);
  return bits >> shift === base >> shift;
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
