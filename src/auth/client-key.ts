import { isIP } from 'node:net';
import { ipv6Words, mappedIpv4 } from '../http/address-guard.js';

/**
 * Who a client is, for counting its failures: an IPv4 address as it is, an IPv6 address by its /64. One household or
 * one cloud host is given a whole /64 and picks any address in it at will, so counting single IPv6 addresses would let
 * it guess without end. An IPv4-mapped IPv6 address (`::ffff:203.0.113.9`) counts as its IPv4 address.
 */
export function clientKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const v4 = mappedIpv4(address);
  if (v4 !== null) return v4;
  const words = ipv6Words(address);
  return `${words
    .slice(0, 4)
    .map((w) => w.toString(16))
    .join(':')}::/64`;
}
