import type { AppConfig } from '../../src/config/app-config.js';
import type { ConnectionName } from '../../src/config/connection-settings.js';
import type { ConnectionsService } from '../../src/connections/connections.service.js';

/** The connections of a config's environment, for a client built without the app (and so without Postgres). */
export function environmentConnections(config: AppConfig): ConnectionsService {
  const env = config.environmentConnections;
  const byName: Record<ConnectionName, unknown> = {
    service: env.service,
    appointment_crm: env.appointmentCrm,
    record_crm: env.recordCrm,
    webhooks: env.webhooks,
  };
  return { get: (name: ConnectionName) => Promise.resolve(byName[name] ?? null) } as unknown as ConnectionsService;
}
