import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../database/data-source-options.js';

/** For the TypeORM CLI: `npx typeorm migration:show -d dist/app/data-source.js`. */
export default new DataSource(buildDataSourceOptions(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/crm_sync'));
