import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { OutboundError } from '../../http/outbound-error.js';
import type { OutboundHttp, OutboundRequest } from '../../http/outbound-http.js';
import { MemoryTokenStore, type TokenStore } from './token-store.js';
import { ZohoAuth } from './zoho-auth.js';

const credentials = {
  accountsUrl: 'https://accounts.example',
  apiDomain: 'https://api.example',
  clientId: 'client-id',
  clientSecret: 'client-secret-value',
  refreshToken: 'refresh-token-value',
};
const retry = { attempts: 2, baseDelayMs: 1, maxDelayMs: 1, maxInlineRetryAfterMs: 10 };

/** An accounts server answering from a list; records what it was asked. */
function accounts(...answers: Array<Record<string, unknown> | OutboundError>) {
  const asked: OutboundRequest[] = [];
  const http = {
    request: async (req: OutboundRequest) => {
      asked.push(req);
      await new Promise((r) => setTimeout(r, 5));
      const answer = answers.shift() ?? { error: 'no more answers' };
      if (answer instanceof OutboundError) throw answer;
      return { status: 200, data: answer, headers: {} };
    },
  } as unknown as OutboundHttp;
  return { http, asked };
}

describe(ZohoAuth.name, () => {
  let now = 1_000_000;
  const clock = () => now;

  it('shares one refresh among concurrent callers, honours api_domain and renews before expiry', async () => {
    const { http, asked } = accounts(
      { access_token: '1000.a.b', api_domain: 'https://www.zohoapis.eu/', expires_in: 3600 },
      { access_token: '1000.c.d', expires_in: 3600 },
    );
    const auth = new ZohoAuth(http, credentials, retry, clock);
    const tokens = await Promise.all([auth.get(), auth.get(), auth.get()]);
    expect(asked).toHaveLength(1);
    expect(tokens.map((t) => t.accessToken)).toEqual(['1000.a.b', '1000.a.b', '1000.a.b']);
    expect(tokens[0].apiDomain).toBe('https://www.zohoapis.eu');
    expect(String(asked[0].body)).toContain('grant_type=refresh_token');
    expect(asked[0].path).toBe('https://accounts.example/oauth/v2/token');
    expect(asked[0].path).not.toContain('refresh-token-value');

    now += 3300 * 1000; // within five minutes of expiry
    const renewed = await auth.get();
    expect(renewed).toMatchObject({ accessToken: '1000.c.d', apiDomain: 'https://api.example' });
    expect(asked).toHaveLength(2);
  });

  it("refuses a token answer naming an API domain that is not Zoho's: the token goes nowhere, no secret in the reason", async () => {
    const { http, asked } = accounts(
      { access_token: '1000.leak', api_domain: 'https://www.zohoapis.eu.evil.example' },
      { access_token: '1000.ok', api_domain: 'https://api.example/' },
    );
    const auth = new ZohoAuth(http, credentials, retry, clock);
    const err = (await auth.get().catch((e: unknown) => e)) as OutboundError;
    expect(err).toBeInstanceOf(OutboundError);
    expect(err).toMatchObject({ failure: 'rejected', transient: false });
    expect(err.message).toContain("the token answer named an API domain that is not Zoho's, refused: api_domain must be one of Zoho's data centres");
    expect(err.message).toContain('https://www.zohoapis.eu.evil.example');
    for (const secret of [credentials.clientSecret, credentials.refreshToken, '1000.leak']) expect(err.message).not.toContain(secret);
    expect(asked).toHaveLength(1); // not retried
    // Not remembered as a refused refresh token: the next answer, on the configured domain, is taken.
    expect(await auth.get()).toMatchObject({ accessToken: '1000.ok', apiDomain: 'https://api.example' });
  });

  it('reads the legacy answer whose expires_in is in ms', async () => {
    const { http } = accounts({ access_token: '1000.a.b', expires_in: 3_600_000, expires_in_sec: 3600 });
    const token = await new ZohoAuth(http, credentials, retry, clock).get();
    expect(token.renewAt - now).toBe(3300 * 1000);
  });

  it('drops an invalid token only once, when a second caller has not replaced it already', async () => {
    const { http, asked } = accounts({ access_token: 'first' }, { access_token: 'second' });
    const auth = new ZohoAuth(http, credentials, retry, clock);
    const first = await auth.get();
    await auth.invalidate(first.accessToken);
    const second = await auth.get();
    await auth.invalidate(first.accessToken); // a late caller with the old token
    expect((await auth.get()).accessToken).toBe(second.accessToken);
    expect(asked).toHaveLength(2);
  });

  it('remembers a refused refresh token instead of asking again, and never quotes a secret', async () => {
    const { http, asked } = accounts({ error: 'invalid_code' }, { access_token: 'never' });
    const auth = new ZohoAuth(http, credentials, retry, clock);
    const refused = (await auth.get().catch((e: unknown) => e)) as OutboundError;
    expect(refused).toBeInstanceOf(OutboundError);
    expect(refused).toMatchObject({ transient: false, failure: 'unauthorized' });
    expect(refused.message).toContain('invalid_code');
    for (const secret of ['client-secret-value', 'refresh-token-value']) expect(refused.message).not.toContain(secret);
    await expect(auth.get()).rejects.toBe(refused);
    expect(asked).toHaveLength(1);
  });

  it('treats "Access Denied" as throttling: transient, with a wait', async () => {
    const { http } = accounts({ error: 'Access Denied', error_description: 'You have made too many requests continuously.' });
    const err = await new ZohoAuth(http, credentials, retry, clock).get().catch((e: unknown) => e);
    expect(err).toMatchObject({ transient: true, failure: 'rate_limited', retryAfterMs: 60_000 });
  });

  it('retries an accounts server that is down', async () => {
    const { http, asked } = accounts(new OutboundError('zoho_accounts', 'POST /oauth/v2/token', 'unavailable', 503, ''), { access_token: 'ok' });
    expect((await new ZohoAuth(http, credentials, retry, clock).get()).accessToken).toBe('ok');
    expect(asked).toHaveLength(2);
  });

  describe('with a store shared by two replicas', () => {
    it('one refresh for both; the other waits for its token', async () => {
      const { http, asked } = accounts({ access_token: 'shared', expires_in: 3600 });
      const store = new MemoryTokenStore(clock);
      const [a, b] = [new ZohoAuth(http, credentials, retry, clock, undefined, store), new ZohoAuth(http, credentials, retry, clock, undefined, store)];
      const tokens = await Promise.all([a.get(), b.get(), a.get(), b.get()]);
      expect(tokens.map((t) => t.accessToken)).toEqual(['shared', 'shared', 'shared', 'shared']);
      expect(asked).toHaveLength(1);
    });

    it("drops the shared token only while it is the one Zoho refused, and the other replica's late report keeps the new one", async () => {
      const { http, asked } = accounts({ access_token: 'first' }, { access_token: 'second' });
      const store = new MemoryTokenStore(clock);
      const [a, b] = [new ZohoAuth(http, credentials, retry, clock, undefined, store), new ZohoAuth(http, credentials, retry, clock, undefined, store)];
      await Promise.all([a.get(), b.get()]);
      await a.invalidate('first');
      expect((await a.get()).accessToken).toBe('second');
      await b.invalidate('first');
      expect((await b.get()).accessToken).toBe('second');
      expect(asked).toHaveLength(2);
    });

    it('a refusal one replica was given fails the other without asking', async () => {
      const { http, asked } = accounts({ error: 'invalid_code' }, { access_token: 'never' });
      const store = new MemoryTokenStore(clock);
      const refused: string[] = [];
      const a = new ZohoAuth(http, credentials, retry, clock, (reason) => refused.push(reason), store);
      const b = new ZohoAuth(http, credentials, retry, clock, (reason) => refused.push(reason), store);
      const first = (await a.get().catch((e: unknown) => e)) as OutboundError;
      const second = (await b.get().catch((e: unknown) => e)) as OutboundError;
      expect(second).toBeInstanceOf(OutboundError);
      expect(second).toMatchObject({ failure: 'unauthorized', transient: false, excerpt: first.excerpt, message: first.message });
      expect(asked).toHaveLength(1);
      expect(refused).toHaveLength(1);
    });

    it('a store that fails is done without: each replica refreshes on its own, and says so once', async () => {
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      const { http, asked } = accounts({ access_token: 'own' });
      const down = () => Promise.reject(new Error('Redis is unreachable'));
      const broken: TokenStore = { read: down, save: down, refuse: down, drop: down, lock: down };
      const auth = new ZohoAuth(http, credentials, retry, clock, undefined, broken);
      expect((await auth.get()).accessToken).toBe('own');
      await auth.invalidate('own');
      expect(asked).toHaveLength(1);
      expect(warn).toHaveBeenCalledTimes(1);
      warn.mockRestore();
    });
  });
});
