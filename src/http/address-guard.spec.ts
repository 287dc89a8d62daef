import { checkDownloadUrl, guardedLookup, nonPublicReason, RefusedAddressError } from './address-guard.js';

describe(nonPublicReason.name, () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private (shared address space)'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.254', 'benchmarking'],
    ['192.0.0.170', 'IETF protocol assignments'],
    ['192.0.2.1', 'documentation (TEST-NET-1)'],
    ['203.0.113.7', 'documentation (TEST-NET-3)'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['2002:7f00:1::1', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['64:ff9b:1::a00:1', 'NAT64 for local use'],
    ['2001:db8::1', 'documentation'],
    ['100::1', 'discard-only'],
    ['4000::1', 'not global unicast'],
    ['::ffff:198.18.0.1', 'benchmarking'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fe80::1%eth0', 'link-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:192.168.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
  ])('%s is %s', (address, kind) => {
    expect(nonPublicReason(address)).toMatch(new RegExp(` is ${kind.replace(/[()]/g, '\\$&')}$`));
  });

  it.each(['93.184.216.34', '172.32.0.1', '192.169.0.1', '198.20.0.1', '2606:4700::1111', '2a00:1450::1', '::ffff:93.184.216.34', '64:ff9b::5db8:d822'])(
    '%s is public',
    (address) => {
      expect(nonPublicReason(address)).toBeNull();
    },
  );
});

describe(checkDownloadUrl.name, () => {
  const strict = { allowPrivate: false };
  it('refuses plain http and non-public IP literals, also in IPv6 brackets', () => {
    expect(() => checkDownloadUrl('http://files.example.com/x.pdf', strict)).toThrow('refused: http is not https');
    expect(() => checkDownloadUrl('https://169.254.169.254/latest', strict)).toThrow('169.254.169.254 is link-local');
    expect(() => checkDownloadUrl('https://[::ffff:127.0.0.1]/x.pdf', strict)).toThrow(/is loopback/);
    expect(() => checkDownloadUrl('https://[fd00::2]:8443/x.pdf', strict)).toThrow(/is unique-local/);
    expect(() => checkDownloadUrl('https://2130706433/x.pdf', strict)).toThrow('127.0.0.1 is loopback');
  });

  it('lets https to a public host or address through, and anything when private addresses are allowed', () => {
    expect(() => checkDownloadUrl('https://files.example.com/x.pdf?sig=1', strict)).not.toThrow();
    expect(() => checkDownloadUrl('https://93.184.216.34/x.pdf', strict)).not.toThrow();
    expect(() => checkDownloadUrl('http://127.0.0.1:8080/x.pdf', { allowPrivate: true })).not.toThrow();
  });
});

describe(guardedLookup.name, () => {
  const resolve = (host: string, allowPrivate: boolean) =>
    new Promise<unknown>((done) => guardedLookup({ allowPrivate })(host, {}, (err, addresses) => done(err ?? addresses)));

  it('refuses a name that resolves to a loopback address, naming both', async () => {
    const outcome = await resolve('localhost', false);
    expect(outcome).toBeInstanceOf(RefusedAddressError);
    expect((outcome as Error).message).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1) is loopback/);
  });

  it('answers every address when private addresses are allowed', async () => {
    const outcome = (await resolve('localhost', true)) as Array<{ address: string; family: number }>;
    expect(outcome.length).toBeGreaterThan(0);
    expect(outcome.every((a) => nonPublicReason(a.address) !== null)).toBe(true);
  });
});
