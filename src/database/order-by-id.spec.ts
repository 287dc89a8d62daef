import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Ids leave Postgres as text (`id::text AS id`: they exceed 2^53). `ORDER BY id` then names the output column, the
 * text, where "100" sorts before "99": a keyset page skips rows and a claim reads every waiting row to sort them. So
 * every statement names the table's id (`ORDER BY webhook_inbox.id`), whatever it selects. (SOQL's `Id` is
 * Salesforce's, not a column of ours.)
 */
export function bareIdOrderings(text: string): string[] {
  return [...text.matchAll(/ORDER BY\s+([^`;)\n]*)/gi)]
    .map((match) => match[1].split(/\b(?:LIMIT|OFFSET|FOR)\b/i)[0])
    .filter((clause) => clause.split(',').some((item) => item.trim().split(/\s+/)[0] === 'id'))
    .map((clause) => `ORDER BY ${clause.trim()}`);
}

function statementFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : statementFiles(path);
    return /\.(ts|sql)$/.test(entry.name) && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('statements that order by id', () => {
  it('name the table of the id (text ids would sort as text)', () => {
    const bare = statementFiles(SRC).flatMap((file) => bareIdOrderings(readFileSync(file, 'utf8')).map((clause) => `${relative(SRC, file)}: ${clause}`));
    expect(bare).toEqual([]);
  });

  it('are found wherever the id stands in the ordering', () => {
    expect(bareIdOrderings('SELECT id::text AS id FROM t ORDER BY id LIMIT 5')).toEqual(['ORDER BY id']);
    expect(bareIdOrderings('SELECT * FROM t ORDER BY run, id DESC')).toEqual(['ORDER BY run, id DESC']);
    expect(bareIdOrderings('SELECT id::text FROM t ORDER BY t.id FOR UPDATE SKIP LOCKED')).toEqual([]);
    expect(bareIdOrderings('SELECT * FROM t ORDER BY project_id, identity')).toEqual([]);
    expect(bareIdOrderings('SELECT Id FROM i360__Appointment__c ORDER BY SystemModstamp, Id')).toEqual([]);
  });
});
