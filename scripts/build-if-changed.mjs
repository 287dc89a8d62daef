#!/usr/bin/env node
/**
 * Runs a build unless its output was built from the same sources: `node scripts/build-if-changed.mjs <out> <command…>`.
 * The sources of `dist` are the daemon's (src and the compiler settings); those of `build` are everything tsconfig.json
 * compiles. Their content hash is kept in `<out>/.sources-hash` once the command succeeded, so CI builds once while its
 * steps (typecheck, test, screenshots, soak) each still make sure of a build, and a developer's edit rebuilds.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SOURCES = {
  dist: ['src', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'package-lock.json'],
  build: ['src', 'sim', 'test', 'bench', 'scripts', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'package-lock.json'],
};
/** Written by the build itself (the @nestjs/swagger plugin). */
const WRITTEN_BY_BUILD = new Set(['src/metadata.ts']);

const [out, ...command] = process.argv.slice(2);
if (!SOURCES[out] || command.length === 0) {
  console.error(`usage: build-if-changed.mjs <${Object.keys(SOURCES).join('|')}> <command…>`);
  process.exit(2);
}

function listed(path) {
  try {
    return readdirSync(path, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))
      .flatMap((entry) => (entry.isDirectory() ? listed(join(path, entry.name)) : [join(path, entry.name)]));
  } catch (err) {
    if (err.code === 'ENOTDIR') return [path];
    if (err.code === 'ENOENT') return [];
    throw err;
  }
}

function sourcesHash() {
  const hash = createHash('sha256');
  for (const file of SOURCES[out].flatMap(listed).filter((f) => !WRITTEN_BY_BUILD.has(f))) {
    hash.update(`${file}\0`).update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

const stamp = join(out, '.sources-hash');
const before = sourcesHash();
if (existsSync(stamp) && readFileSync(stamp, 'utf8') === before) {
  console.log(`${out}/ was built from these sources: not built again`);
  process.exit(0);
}
const run = spawnSync(command[0], command.slice(1), { stdio: 'inherit', shell: false });
if (run.status !== 0) process.exit(run.status ?? 1);
writeFileSync(stamp, before);
