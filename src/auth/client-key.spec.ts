import { clientKey } from './client-key.js';

describe('clientKey', () => {
  it('counts an IPv6 client by its /64, so a host cannot pick a fresh address per guess', () => {
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(clientKey('2001:0db8:0001:0002::7'));
    expect(clientKey('2001:db8:1:3::1')).not.toBe(clientKey('2001:db8:1:2::1'));
  });

  it('counts an IPv4 client (also written IPv4-mapped) by its address', () => {
    expect(clientKey('203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('203.0.113.10')).not.toBe(clientKey('203.0.113.9'));
  });
});
