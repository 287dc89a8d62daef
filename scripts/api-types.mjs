// Writes (or with --check, compares) console/api-types.d.ts: the TypeScript types of the OpenAPI document the daemon
// serves at /docs, made by openapi-typescript. The document is built from the built daemon (dist/, with the
// @nestjs/swagger plugin's metadata) in Nest's preview mode: no provider runs, so no database, Redis or server is
// needed. `npm run typecheck` runs the check, so a route, a view or an enum (ACTION_KINDS) that changes without the
// console's types fails CI; `npm run api-types` writes the file again.
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { readFileSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';
import { format, resolveConfig } from 'prettier';
import { AppModule } from '../dist/app/app.module.js';
import { apiDocument } from '../dist/app/openapi.js';
import { loadConfig } from '../dist/config/app-config.js';

const TARGET = new URL('../console/api-types.d.ts', import.meta.url);
const TARGET_PATH = TARGET.pathname;
const HEADER =
  '// Written by `npm run api-types` from the OpenAPI document the daemon serves at /docs; do not edit.\n' +
  '// `npm run typecheck` fails when it differs from what the daemon says.\n\n';

// The routes do not depend on the configuration; an empty environment takes every default.
const app = await NestFactory.create(AppModule.forRoot(loadConfig({})), new FastifyAdapter(), { preview: true, logger: false, abortOnError: false });
const document = await apiDocument(app);
await app.close();
const types = await format(HEADER + astToString(await openapiTS(document, { alphabetize: true })), {
  ...(await resolveConfig(TARGET_PATH)),
  filepath: TARGET_PATH,
});

if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(TARGET, 'utf8');
  } catch {
    // missing: a difference like any other
  }
  if (committed !== types) {
    process.stderr.write('console/api-types.d.ts differs from the OpenAPI document the daemon serves: run `npm run api-types` and commit it.\n');
    process.exit(1);
  }
} else {
  writeFileSync(TARGET, types);
}
