import { Inject, Injectable, Logger } from '@nestjs/common';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ConnectionsService } from '../connections/connections.service.js';
import type { AdminActor } from '../config/roles.js';
import { SessionEpochRepository } from './session-epoch.repository.js';
import { credentialMac, sessionMacKey, sessionSecretFrom, type SessionSecret } from './session-secret.js';

/** The cookie's name over plain http (development, tests); over https it is `__Host-crm_sync_session`. */
export const SESSION_COOKIE = 'crm_sync_session';
/** A `__Host-` cookie is kept by the browser only when Secure, Path=/ and without Domain: no sibling host can set it. */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;
/** Twelve hours, the cookie's Max-Age and the expiry inside its value. */
export const SESSION_SECONDS = 12 * 3600;
/** How far a replica's clock may be behind the one that made a cookie: an expiry beyond now + lifetime + this is refused. */
export const SESSION_CLOCK_SKEW_SECONDS = 60;
export const CSRF_HEADER = 'x-crm-sync-csrf';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

interface KnownToken extends AdminActor {
  /** sha256 of the token: what a presented token is compared with. */
  hash: Buffer;
  /** The MAC key of its sessions (session-secret.ts): the server secret bound to `hash`. */
  sessionKey: Buffer;
}

/**
 * Who is calling: a Bearer token or a console session cookie resolved to `{ name, role }`.
 *
 * A session cookie is `<name>.<epoch>.<expiry>.<mac>`, the MAC an HMAC-SHA256 of `<name>.<epoch>.<expiry>` keyed by
 * the server secret bound to that name's token hash (session-secret.ts), so a copy of the database signs nothing and
 * a changed or removed token ends its sessions. An expiry further than the session lifetime from now is refused, and
 * the epoch must be the name's current one (session-epoch.repository.ts): signing out advances it on every replica at once.
 * Tokens are compared as hashes in constant time, so neither the answer nor its timing says anything about a token's
 * length or prefix.
 */
@Injectable()
export class AdminIdentityService {
  private readonly logger = new Logger('AdminSessions');
  private readonly tokens: KnownToken[];
  private readonly secret: Buffer;
  private readonly secretOrigin: SessionSecret['origin'];
  /** PUBLIC_URL is https: every cookie is Secure (and `__Host-`), whatever the request's own protocol says. */
  private readonly publicHttps: boolean;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly epochs: SessionEpochRepository,
    connections: ConnectionsService,
  ) {
    const secret = sessionSecretFrom(config.sessionSecret, connections.key);
    this.secret = secret.key;
    this.secretOrigin = secret.origin;
    if (secret.origin === 'this process only')
      this.logger.warn('no SESSION_SECRET and no connections key: console sessions last only as long as this process and work on this replica only');
    this.publicHttps = config.publicUrl?.startsWith('https:') ?? false;
    this.tokens = config.adminTokens.map((t) => this.known({ name: t.name, role: t.role }, digest(t.token)));
  }

  /** The actor of a token, or null. Every known token is compared, so the time does not depend on which matched. */
  byToken(token: string): AdminActor | null {
    const presented = digest(token);
    let found: KnownToken | null = null;
    for (const known of this.tokens) if (timingSafeEqual(presented, known.hash) && !found) found = known;
    return found ? { name: found.name, role: found.role } : null;
  }

  /** Whether the server secret outlives this process (SESSION_SECRET or the connections key), so its MACs can be checked later. */
  get secretIsStable(): boolean {
    return this.secretOrigin !== 'this process only';
  }

  /** The MAC a stored credential carries (session-secret.ts `credentialMac`). */
  credentialMac(name: string, tokenHash: string): string {
    return credentialMac(this.secret, name, tokenHash);
  }

  /** Whether a stored credential's MAC is this server's, compared in constant time. */
  credentialMacMatches(name: string, tokenHash: string, mac: string | null): boolean {
    const expected = Buffer.from(this.credentialMac(name, tokenHash), 'utf8');
    const given = Buffer.from(mac ?? '', 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** Adds a token known only by its sha256 (the one made on the first start, `first-start-token.service.ts`). */
  addHashedToken(actor: AdminActor, hash: Buffer): void {
    this.tokens.push(this.known(actor, hash));
  }

  /** The actor of an `Authorization: Bearer <token>` header, or null. */
  byBearer(header: string | undefined): AdminActor | null {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
    return match ? this.byToken(match[1]) : null;
  }

  /** Whether the session cookie of this request is Secure and named `__Host-…`: PUBLIC_URL is https, or the request came over https. */
  secureFor(request: FastifyRequest): boolean {
    return this.publicHttps || request.protocol === 'https';
  }

  /** The session cookie's name for this request (see `secureFor`). */
  cookieNameFor(request: FastifyRequest): string {
    return this.secureFor(request) ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
  }

  /** A session cookie value for a token's actor, in its name's current epoch, valid `SESSION_SECONDS` from `now`. */
  async sessionFor(actor: AdminActor, now = Date.now()): Promise<string> {
    const known = this.tokens.find((t) => t.name === actor.name)!;
    const epoch = await this.epochs.current(known.name);
    const payload = `${known.name}.${epoch}.${Math.floor(now / 1000) + SESSION_SECONDS}`;
    return `${payload}.${mac(known.sessionKey, payload)}`;
  }

  /**
   * The actor of a session cookie value, or null when it is malformed, expired, dated beyond the lifetime, tampered
   * with, signed out, or its token is gone.
   */
  async bySession(value: string | undefined, now = Date.now()): Promise<AdminActor | null> {
    const match = /^([A-Za-z0-9_-]{1,64})\.(\d{1,18})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value ?? '');
    if (!match) return null;
    const [, name, epoch, expiry, presented] = match;
    const expiresAt = Number(expiry) * 1000;
    if (expiresAt <= now || expiresAt > now + (SESSION_SECONDS + SESSION_CLOCK_SKEW_SECONDS) * 1000) return null;
    const known = this.tokens.find((t) => t.name === name);
    if (!known) return null;
    const expected = Buffer.from(mac(known.sessionKey, `${name}.${epoch}.${expiry}`), 'utf8');
    const given = Buffer.from(presented, 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    if (epoch !== (await this.epochs.current(name))) return null;
    return { name: known.name, role: known.role };
  }

  /** Signs out: the session's name moves to its next epoch, so this cookie and every earlier one of that name are refused. */
  async revoke(value: string | undefined): Promise<void> {
    const actor = await this.bySession(value);
    if (actor) await this.epochs.advance(actor.name);
  }

  private known(actor: AdminActor, hash: Buffer): KnownToken {
    return { name: actor.name, role: actor.role, hash, sessionKey: sessionMacKey(this.secret, hash) };
  }
}

const mac = (key: Buffer, payload: string): string => createHmac('sha256', key).update(payload, 'utf8').digest('base64url');

/** The value of one cookie in a `Cookie` header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The `Set-Cookie` value of a session (or, with `value` null, of its removal): `__Host-crm_sync_session` and Secure
 * when `secure`, else `crm_sync_session` (a browser refuses a `__Host-` cookie that is not Secure, and plain http
 * cannot carry a Secure one). Never a Domain attribute.
 */
export function sessionCookie(value: string | null, secure: boolean): string {
  const name = secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
  const attributes = [`${name}=${value ?? ''}`, 'HttpOnly', 'SameSite=Strict', 'Path=/', `Max-Age=${value === null ? 0 : SESSION_SECONDS}`];
  if (secure) attributes.push('Secure');
  return attributes.join('; ');
}
