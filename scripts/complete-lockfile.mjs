// Completes package-lock.json with the platform-specific optional packages (other operating systems and CPUs)
// that npm leaves out when its registry does not serve them, as on the project's build machines. Without them
// `npm ci` calls the lock out of sync. Each entry is marked optional with its os/cpu, so npm ci skips it on any
// other platform. Run after `npm install`: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openharmony', 'openbsd', 'netbsd', 'sunos', 'aix'];
const CPU = {
  x64: 'x64',
  arm64: 'arm64',
  arm: 'arm',
  ia32: 'ia32',
  ppc64: 'ppc64',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
  wasm32: 'wasm32',
  universal: null,
};

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpuPart = parts.find((p) => p in CPU);
  return { os: os ? [os] : undefined, cpu: cpuPart && CPU[cpuPart] ? [CPU[cpuPart]] : undefined };
}

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
let added = 0;
for (const [key, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = key === '' ? '' : `${key}/`;
    const candidates = [`${base}node_modules/${dep}`, `node_modules/${dep}`];
    if (candidates.some((c) => lock.packages[c])) continue;
    const { os, cpu } = platformOf(dep);
    if (!os && !cpu) continue; // not a platform package: a real gap, left for npm to report
    lock.packages[`node_modules/${dep}`] = { version, optional: true, ...(os ? { os } : {}), ...(cpu ? { cpu } : {}) };
    added++;
  }
}
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} platform-specific optional package(s) to package-lock.json`);
