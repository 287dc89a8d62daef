import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { KEY_BYTES, parseConnectionsKey, type ConnectionsKey } from '../config/connections-key.js';

export interface SessionSecret {
  key: Buffer;
  /** Where it came from, for the start-up log line (never the key itself). */
  origin: 'SESSION_SECRET' | 'connections key' | 'this process only';
}

/** The HKDF label: a key derived for sessions can never be used to open the connections' secrets, nor the reverse. */
const SESSION_KEY_INFO = 'crm-sync admin session cookies v1';

/**
 * The server secret of the console's session cookies, never stored in the database: `SESSION_SECRET` when set, else a
 * sub-key of the connections key (`CONNECTIONS_KEY` or its file), so one secret kept beside the daemon covers both and
 * every replica sharing it accepts the others' sessions. Without either, a random key for this process only: sign-in
 * works, but sessions end at a restart and do not cross replicas.
 */
export function sessionSecretFrom(sessionSecret: string | null, connectionsKey: ConnectionsKey): SessionSecret {
  const configured = sessionSecret === null ? null : parseConnectionsKey(sessionSecret);
  if (configured) return { key: configured, origin: 'SESSION_SECRET' };
  if (connectionsKey.ok)
    return { key: Buffer.from(hkdfSync('sha256', connectionsKey.key, Buffer.alloc(0), SESSION_KEY_INFO, KEY_BYTES)), origin: 'connections key' };
  return { key: randomBytes(KEY_BYTES), origin: 'this process only' };
}

/**
 * The MAC key of one token's sessions: the server secret bound to the sha256 of the token, so a changed or removed
 * token ends its sessions, and knowing the stored hash alone (a copy of `admin_credential`) signs nothing.
 */
export function sessionMacKey(secret: Buffer, tokenHash: Buffer): Buffer {
  return createHmac('sha256', secret).update('session-mac-key\0', 'utf8').update(tokenHash).digest();
}

/**
 * The MAC of a stored admin credential (`admin_credential`: a name and the sha256 of its token) under the server
 * secret: whoever can write to the database but does not hold the secret cannot put a hash of their own token there
 * and become admin. Hex.
 */
export function credentialMac(secret: Buffer, name: string, tokenHash: string): string {
  return createHmac('sha256', secret).update('admin-credential\0', 'utf8').update(name, 'utf8').update('\0', 'utf8').update(tokenHash, 'utf8').digest('hex');
}
