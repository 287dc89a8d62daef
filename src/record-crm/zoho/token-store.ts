import type { OutboundFailure } from '../../http/outbound-error.js';

export interface ZohoToken {
  accessToken: string;
  /** Where API calls go: the `api_domain` of the token answer, else the configured one. */
  apiDomain: string;
  /** When to stop using it: shortly before Zoho's expiry. */
  renewAt: number;
  /** The scopes the token answer named; null (or absent, in a token stored before) when it named none. */
  scopes?: string[] | null;
}

/** Zoho's refusal to refresh (a refused refresh token, or its throttling), as remembered until `until`. */
export interface TokenRefusal {
  failure: Extract<OutboundFailure, 'unauthorized' | 'rate_limited'>;
  status: number | null;
  excerpt: string;
  until: number;
}

/**
 * Where the access token of one Zoho connection is kept for whoever shares it: every replica (Redis), or one
 * ZohoAuth (memory). A token is kept until its `renewAt`, a refusal until its `until`.
 */
export interface TokenStore {
  read(): Promise<{ token: ZohoToken | null; refusal: TokenRefusal | null }>;
  save(token: ZohoToken): Promise<void>;
  refuse(refusal: TokenRefusal): Promise<void>;
  /** Forgets the token if it is still this one (Zoho called it invalid). */
  drop(accessToken: string): Promise<void>;
  /** The right to refresh for at most `ms`, or null while someone else has it; call the answer to give it back. */
  lock(ms: number): Promise<(() => Promise<void>) | null>;
}

/** A store of one process's own (a connection checked before it is saved, the unit spec). */
export class MemoryTokenStore implements TokenStore {
  private token: ZohoToken | null = null;
  private refusal: TokenRefusal | null = null;
  private lockedUntil = 0;

  constructor(private readonly now: () => number = Date.now) {}

  read(): Promise<{ token: ZohoToken | null; refusal: TokenRefusal | null }> {
    const now = this.now();
    if (this.token && now >= this.token.renewAt) this.token = null;
    if (this.refusal && now >= this.refusal.until) this.refusal = null;
    return Promise.resolve({ token: this.token, refusal: this.refusal });
  }

  save(token: ZohoToken): Promise<void> {
    this.token = token;
    return Promise.resolve();
  }

  refuse(refusal: TokenRefusal): Promise<void> {
    this.refusal = refusal;
    return Promise.resolve();
  }

  drop(accessToken: string): Promise<void> {
    if (this.token?.accessToken === accessToken) this.token = null;
    return Promise.resolve();
  }

  lock(ms: number): Promise<(() => Promise<void>) | null> {
    if (this.now() < this.lockedUntil) return Promise.resolve(null);
    this.lockedUntil = this.now() + ms;
    return Promise.resolve(() => {
      this.lockedUntil = 0;
      return Promise.resolve();
    });
  }
}
