import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from './data-source-options.js';

/** For the TypeORM CLI: `npx typeorm migration:show -d dist/database/data-source.js`. */
export default new DataSource(buildDataSourceOptions(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/crm_sync'));
