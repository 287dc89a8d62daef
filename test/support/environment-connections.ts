import type { AppConfig } from '../../src/config/app-config.js';
import type { ConnectionName } from '../../src/config/connection-settings.js';
import { loadConnectionsKey } from '../../src/config/connections-key.js';
import type { ConnectionsService } from '../../src/connections/connections.service.js';
import { SecretBox } from '../../src/connections/secret-box.js';

/**
 * The connections of a config's environment, for a client built without the app (and so without Postgres); with the
 * config's connections key, which seals what the clients share in Redis.
 */
export function environmentConnections(config: AppConfig): ConnectionsService {
  const env = config.environmentConnections;
  const byName: Record<ConnectionName, unknown> = {
    service: env.service,
    appointment_crm: env.appointmentCrm,
    record_crm: env.recordCrm,
    webhooks: env.webhooks,
  };
  // Never the key file: a client built here must not write one.
  const key =
    config.connections.key === null ? ({ ok: false, problem: 'no CONNECTIONS_KEY', path: null } as const) : loadConnectionsKey(config.connections.key, '');
  const box = key.ok ? new SecretBox(key.key) : null;
  return {
    key,
    get: (name: ConnectionName) => Promise.resolve(byName[name] ?? null),
    seal: (value: unknown, associatedData: string) => box!.seal(value, associatedData),
    open: <T>(sealed: string, associatedData: string) => box!.open<T>(sealed, associatedData),
  } as unknown as ConnectionsService;
}
