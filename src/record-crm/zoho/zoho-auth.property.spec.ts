import fc from 'fast-check';
import { OutboundError } from '../../http/outbound-error.js';
import type { OutboundHttp } from '../../http/outbound-http.js';
import { ZOHO_DATA_CENTRES } from '../../config/zoho-data-centres.js';
import { ZOHO_ONLY, type ZohoDomainRule } from '../../config/zoho-domains.js';
import { ZohoAuth } from './zoho-auth.js';

const runs = { numRuns: 300, interruptAfterTimeLimit: 4000 };
const credentials = { accountsUrl: 'https://accounts.example', apiDomain: 'https://api.example', clientId: 'c', clientSecret: 's', refreshToken: 'r' };
const retry = { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, maxInlineRetryAfterMs: 10 };
const now = 1_000_000;

/** A token answer near the real ones: the documented fields with values of any JSON type, and extra fields. */
const answer = fc.oneof(
  fc.record(
    {
      access_token: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 1 })),
      api_domain: fc.oneof(fc.webUrl(), fc.constantFrom('https://www.zohoapis.eu///', 'http://', 'ftp://x', ''), fc.jsonValue({ maxDepth: 1 })),
      expires_in: fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 })),
      expires_in_sec: fc.oneof(fc.integer(), fc.string({ maxLength: 6 })),
      error: fc.oneof(fc.constantFrom('invalid_code', 'Access Denied', 'invalid_client'), fc.jsonValue({ maxDepth: 1 })),
      error_description: fc.oneof(fc.constantFrom('You have made too many requests continuously.'), fc.jsonValue({ maxDepth: 1 })),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue(),
);

/** Any host may be the API domain: the reading of the answer alone. */
const ANY_DOMAIN: ZohoDomainRule = { allowCustom: true, accountsUrl: null, apiDomain: null };

async function tokenFor(data: unknown, domains: ZohoDomainRule = ANY_DOMAIN) {
  const http = { request: () => Promise.resolve({ status: 200, data, headers: {} }) } as unknown as OutboundHttp;
  return new ZohoAuth(http, credentials, retry, () => now, undefined, undefined, domains).get();
}

describe('ZohoAuth token answers (properties)', () => {
  it('reads any answer of the token endpoint as a usable token or an OutboundError that says why', async () => {
    await fc.assert(
      fc.asyncProperty(answer, async (data) => {
        const started = Date.now();
        let token;
        try {
          token = await tokenFor(data);
        } catch (err) {
          expect(err).toBeInstanceOf(OutboundError);
          expect(['unauthorized', 'rate_limited']).toContain((err as OutboundError).failure);
          expect((err as OutboundError).message).toMatch(/Zoho (refused|throttled)/);
          return;
        }
        expect(typeof token.accessToken).toBe('string');
        expect(token.accessToken).not.toBe('');
        expect(token.accessToken).toBe((data as { access_token: string }).access_token);
        expect(token.apiDomain).toMatch(/^https?:\/\/[^/]/);
        expect(token.apiDomain.endsWith('/')).toBe(false);
        // Never NaN nor in the past: a lifetime of a fraction of a millisecond (5e-324 s) renews at once, an absurdly long one
        // (1e305 s) never, until Zoho calls the token invalid.
        expect(token.renewAt).toBeGreaterThanOrEqual(now);
        expect(Date.now() - started).toBeLessThan(1000);
      }),
      {
        ...runs,
        // Found with this property: an api_domain without a host (`http://`) was taken, as `http:`; trimming the slashes of a
        // long api_domain by a regular expression took quadratic time (seconds for 100,000 slashes).
        examples: [
          [{ access_token: ' ', api_domain: 'http://' }],
          [{ access_token: 't', api_domain: `https://${'/'.repeat(100_000)}x` }],
          [{ access_token: 't', expires_in: -5, api_domain: 'https://a///' }],
        ],
      },
    );
  });

  it("never takes an API domain that is neither the configured one nor Zoho's", async () => {
    const zohoDomains = ZOHO_DATA_CENTRES.map((dc) => dc.apiDomain);
    const apiDomain = fc.oneof(
      fc.webUrl(),
      fc.constantFrom(...zohoDomains, ...zohoDomains.map((d) => `${d}/`), credentials.apiDomain, 'https://www.zohoapis.eu.evil.example'),
    );
    await fc.assert(
      fc.asyncProperty(apiDomain, async (named) => {
        try {
          const token = await tokenFor({ access_token: 't', api_domain: named }, ZOHO_ONLY);
          expect([credentials.apiDomain, ...zohoDomains]).toContain(token.apiDomain);
        } catch (err) {
          expect((err as OutboundError).failure).toBe('rejected');
          expect((err as OutboundError).message).toContain("named an API domain that is not Zoho's");
          expect([credentials.apiDomain, ...zohoDomains]).not.toContain(named.replace(/\/+$/, ''));
        }
      }),
      runs,
    );
  });
});
