import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export const KEY_BYTES = 32;

/** A 32-byte key written as 64 hex digits or as base64 (44 characters); null when it is neither. */
export function parseConnectionsKey(value: string): Buffer | null {
  const text = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const key = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (key.length === KEY_BYTES) return key;
  }
  return null;
}

export type ConnectionsKey =
  { ok: true; key: Buffer; origin: 'environment' | 'file' | 'generated'; path: string | null } | { ok: false; problem: string; path: string | null };

/**
 * The key of the console's secrets: `CONNECTIONS_KEY` when set, else the key file, which is generated (0600) when it
 * does not exist yet, as n8n does with its encryption key. A file that cannot be read or written leaves the daemon
 * without a key: console edits then answer 409 and environment connections keep working.
 */
export function loadConnectionsKey(fromEnvironment: string | null, keyFile: string): ConnectionsKey {
  if (fromEnvironment !== null) {
    const key = parseConnectionsKey(fromEnvironment);
    return key ? { ok: true, key, origin: 'environment', path: null } : { ok: false, problem: 'CONNECTIONS_KEY is not a 32-byte key', path: null };
  }
  const path = resolve(keyFile);
  let text: string | null = null;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      return { ok: false, problem: `the key file ${path} cannot be read (${(err as NodeJS.ErrnoException).code})`, path };
  }
  if (text !== null) {
    const key = parseConnectionsKey(text);
    return key ? { ok: true, key, origin: 'file', path } : { ok: false, problem: `the key file ${path} does not hold a 32-byte key`, path };
  }
  const key = randomBytes(KEY_BYTES);
  try {
    mkdirSync(dirname(path), { recursive: true });
    // 'wx': two replicas starting together on one volume must not both write; the loser reads the winner's key.
    writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(path, 0o600);
    return { ok: true, key, origin: 'generated', path };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadConnectionsKey(null, keyFile);
    return { ok: false, problem: `no CONNECTIONS_KEY, and the key file ${path} cannot be created (${(err as NodeJS.ErrnoException).code})`, path };
  }
}
