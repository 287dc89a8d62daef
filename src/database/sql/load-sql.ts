import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const loaded = new Map<string, string>();

/**
 * The SQL of the database functions has one home: `src/database/sql/<function name>.sql`, one file per function,
 * holding its current definition as a `CREATE OR REPLACE FUNCTION` statement. The newest migration that installs a
 * function loads that file; older migrations keep the bodies they installed then as strings (migrations are
 * history, and a `down()` must restore the previous version).
 *
 * To change a function: copy the file's current definition into the migration that loads it now (as its own
 * string, so that migration keeps installing what it installed), edit the .sql file, and add a migration that
 * loads it (its `down()` restores the copy). Keep the signature and the result type: running replicas hold named
 * prepared statements on these functions.
 */
export function sqlFile(name: string): string {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`not the name of a SQL file: ${JSON.stringify(name)}`);
  let text = loaded.get(name);
  if (text === undefined) {
    // Next to this module: src/database/sql/ under Jest (SWC keeps import.meta), dist/database/sql/ once built.
    const url = new URL(`./${name}.sql`, import.meta.url);
    try {
      text = readFileSync(url, 'utf8');
    } catch (err) {
      if ((err as { code?: string }).code !== 'ENOENT') throw err;
      throw new Error(`SQL file ${fileURLToPath(url)} is missing: the build must copy src/database/sql/*.sql next to the compiled load-sql.js`, { cause: err });
    }
    loaded.set(name, text);
  }
  return text;
}
