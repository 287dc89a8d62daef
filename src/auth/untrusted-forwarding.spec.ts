import { jest } from '@jest/globals';
import { UntrustedForwarding } from './untrusted-forwarding.js';

describe('UntrustedForwarding', () => {
  it('warns when X-Forwarded-For arrives without TRUST_PROXY, naming the variable, then at most once per 10 minutes', () => {
    const warn = jest.fn<(message: string) => void>();
    let now = 0;
    const forwarding = new UntrustedForwarding({ warn }, () => now);
    expect(forwarding.check({}, '10.0.0.5')).toBe(false);
    expect(forwarding.check({ 'x-forwarded-for': '203.0.113.9' }, '10.0.0.5')).toBe(true);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toContain('TRUST_PROXY is unset');
    expect(warn.mock.calls[0][0]).toContain('10.0.0.5');
    now += 60_000;
    expect(forwarding.check({ 'x-forwarded-for': '203.0.113.9' }, '10.0.0.5')).toBe(false);
    now += 10 * 60_000;
    expect(forwarding.check({ 'x-forwarded-for': '203.0.113.10' }, '10.0.0.5')).toBe(true);
    expect(warn).toHaveBeenCalledTimes(2);
  });
});
