import { Logger } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';

/** How often the warning is repeated while forwarded requests keep coming. */
const WARN_EVERY_MS = 10 * 60_000;

/**
 * Warns when `X-Forwarded-For` arrives while `TRUST_PROXY` is unset: crm-sync is behind a proxy it does not believe,
 * so every client has the proxy's address, and the sign-in limit (per address) counts them all as one: one client's
 * failures lock every other client out. The header is still ignored (believing it would let any client pick a fresh
 * address per guess); the warning says what to set. Once per 10 minutes, so a busy proxy does not flood the log.
 */
export class UntrustedForwarding {
  private lastWarnedAt = -Infinity;

  constructor(
    private readonly logger: Pick<Logger, 'warn'> = new Logger('TrustProxy'),
    private readonly now: () => number = Date.now,
  ) {}

  /** Looks at one request's headers; true when it warned. */
  check(headers: IncomingHttpHeaders, peer: string): boolean {
    if (headers['x-forwarded-for'] === undefined || this.now() - this.lastWarnedAt < WARN_EVERY_MS) return false;
    this.lastWarnedAt = this.now();
    this.logger.warn(
      `a request from ${peer} carries X-Forwarded-For but TRUST_PROXY is unset: the header is ignored, so every client behind that proxy ` +
        `has its address and shares one sign-in limit (SIGN_IN_MAX_FAILURES); set TRUST_PROXY to the proxy's address or range`,
    );
    return true;
  }
}
