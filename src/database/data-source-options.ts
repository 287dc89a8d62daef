import type { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities.js';
import { MIGRATIONS } from './migrations/index.js';

/** How long opening a connection to Postgres may take. */
export const CONNECTION_TIMEOUT_MS = 5_000;

/** One builder for the daemon, the tests and the TypeORM CLI, so all of them see the same schema. */
export function buildDataSourceOptions(databaseUrl: string): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsRun: false,
    synchronize: false,
    extra: { max: 20, connectionTimeoutMillis: CONNECTION_TIMEOUT_MS },
  };
}
