import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations/index.js';

/** How long opening a connection to Postgres may take. */
export const CONNECTION_TIMEOUT_MS = 5_000;

/** The entity classes the data source maps; each feature module owns its own, so the app gathers them (`src/app/entities.ts`). */
export type Entities = NonNullable<DataSourceOptions['entities']>;

/** One builder for the daemon, the tests and the TypeORM CLI, so all of them see the same schema. */
export function buildDataSourceOptions(databaseUrl: string, entities: Entities): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities,
    migrations: MIGRATIONS,
    migrationsRun: false,
    synchronize: false,
    extra: { max: 20, connectionTimeoutMillis: CONNECTION_TIMEOUT_MS },
  };
}
