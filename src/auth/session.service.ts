import { Inject, Injectable } from '@nestjs/common';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import type { AdminActor } from '../config/roles.js';

export const SESSION_COOKIE = 'crm_sync_session';
/** Twelve hours, the cookie's Max-Age and the expiry inside its value. */
export const SESSION_SECONDS = 12 * 3600;
export const CSRF_HEADER = 'x-crm-sync-csrf';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

interface KnownToken extends AdminActor {
  /** sha256 of the token: what a presented token is compared with, and the key of its sessions' MACs. */
  hash: Buffer;
}

/**
 * Who is calling: a Bearer token or a console session cookie resolved to `{ name, role }`.
 *
 * A session cookie is `<name>.<expiry>.<mac>`, the MAC an HMAC-SHA256 of `<name>.<expiry>` keyed by the sha256 of
 * that name's token (base64url). Any replica with the same tokens verifies it without shared state, and removing or
 * changing a token revokes its sessions. Tokens are compared as hashes in constant time, so neither the answer nor
 * its timing says anything about a token's length or prefix.
 */
@Injectable()
export class AdminIdentity {
  private readonly tokens: KnownToken[];

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const entries = config.adminTokens;
    this.tokens = entries.map((t) => ({ name: t.name, role: t.role, hash: digest(t.token) }));
  }

  /** The actor of a token, or null. Every known token is compared, so the time does not depend on which matched. */
  byToken(token: string): AdminActor | null {
    const presented = digest(token);
    let found: KnownToken | null = null;
    for (const known of this.tokens) if (timingSafeEqual(presented, known.hash) && !found) found = known;
    return found ? { name: found.name, role: found.role } : null;
  }

  /** Adds a token known only by its sha256 (the one made on the first start, `first-start-token.service.ts`). */
  addHashedToken(actor: AdminActor, hash: Buffer): void {
    this.tokens.push({ name: actor.name, role: actor.role, hash });
  }

  /** The actor of an `Authorization: Bearer <token>` header, or null. */
  byBearer(header: string | undefined): AdminActor | null {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
    return match ? this.byToken(match[1]) : null;
  }

  /** A session cookie value for a token's actor, valid `SESSION_SECONDS` from `now`. */
  sessionFor(actor: AdminActor, now = Date.now()): string {
    const known = this.tokens.find((t) => t.name === actor.name)!;
    const payload = `${known.name}.${Math.floor(now / 1000) + SESSION_SECONDS}`;
    return `${payload}.${mac(known.hash, payload)}`;
  }

  /** The actor of a session cookie value, or null when it is malformed, expired, tampered with or its token is gone. */
  bySession(value: string | undefined, now = Date.now()): AdminActor | null {
    const match = /^([A-Za-z0-9_-]{1,64})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(value ?? '');
    if (!match) return null;
    const [, name, expiry, presented] = match;
    if (Number(expiry) * 1000 <= now) return null;
    const known = this.tokens.find((t) => t.name === name);
    if (!known) return null;
    const expected = Buffer.from(mac(known.hash, `${name}.${expiry}`), 'utf8');
    const given = Buffer.from(presented, 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected) ? { name: known.name, role: known.role } : null;
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

/** The `Set-Cookie` value of a session (or, with `value` null, of its removal). */
export function sessionCookie(value: string | null, secure: boolean): string {
  const attributes = [`${SESSION_COOKIE}=${value ?? ''}`, 'HttpOnly', 'SameSite=Strict', 'Path=/', `Max-Age=${value === null ? 0 : SESSION_SECONDS}`];
  if (secure) attributes.push('Secure');
  return attributes.join('; ');
}
