import type { ConnectionName } from '../config/connection-settings.js';

/*
 * The associated data of each sealed value: a purpose label, then what the value is bound to. Two purposes never
 * share a label, so a sealed OAuth request cannot be replayed as a connection's secrets, nor the reverse.
 */

/**
 * A connection's secrets, bound to its row and to its plain settings (base URL, accounts URL, API domain, client id):
 * a secret kept after its URL was changed in the database, or copied to another row, does not open.
 */
export function connectionBinding(name: ConnectionName, plain: Record<string, string>): string {
  const settings = Object.keys(plain)
    .sort()
    .map((key) => [key, plain[key]]);
  return `crm-sync/connection/${name}\n${JSON.stringify(settings)}`;
}

/** What Connect keeps between the consent and the callback, bound to its own single-use state. */
export function oauthRequestBinding(stateHash: string, name: 'record_crm' | 'appointment_crm' = 'record_crm'): string {
  return `crm-sync/oauth-request/${name}\n${stateHash}`;
}

/** What `v1` seals (before the upgrade) were bound to: the connection's name alone. */
export function legacyConnectionBinding(name: ConnectionName): string {
  return name;
}

/**
 * A Zoho access token kept in Redis for the replicas, bound to its connection (the hash of its client id and refresh
 * token, which names its keys): a token sealed for one connection does not open as another's.
 */
export function zohoTokenBinding(connectionHash: string): string {
  return `crm-sync/zoho-token\n${connectionHash}`;
}
