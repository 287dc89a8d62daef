import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations/index.js';

/** How long opening a connection to Postgres may take. */
export const CONNECTION_TIMEOUT_MS = 5_000;

/**
 * One builder for the daemon, the tests and the TypeORM CLI, so all of them run the same migrations. No entity is
 * mapped: every table's repository writes its SQL and types its rows (`*.row.ts` beside it).
 */
export function buildDataSourceOptions(databaseUrl: string): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    migrations: MIGRATIONS,
    migrationsRun: false,
    synchronize: false,
    extra: { max: 20, connectionTimeoutMillis: CONNECTION_TIMEOUT_MS },
  };
}
