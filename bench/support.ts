import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

/** The built daemon (`npm run build`), run as a child process so its memory and CPU are its own. Run from the repo root. */
export const DAEMON_ENTRY = resolve(process.cwd(), 'dist/main.js');
/** The node flags of `npm run start:prod` and the Dockerfile, so benchmarks measure the daemon as it is run. */
export const DAEMON_NODE_FLAGS = ['--expose-gc'];

const RUN_CONNECTIONS_KEY = randomBytes(32).toString('hex');

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
    server.on('error', fail);
  });
}

export interface Daemon {
  process: ChildProcess;
  url: string;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts `node dist/main.js`; resolves once it is ready (or only live, for tests of a daemon whose Postgres or Redis is down). */
export async function startDaemon(env: Record<string, string>, options: { until?: 'ready' | 'live'; timeoutMs?: number } = {}): Promise<Daemon> {
  const probe = options.until === 'live' ? '/health' : '/health/ready';
  // A wait, not a promise: on a loaded 2-core machine the daemon has taken over 30 s to be ready.
  const readyTimeoutMs = options.timeoutMs ?? 90_000;
  const port = env.PORT ? Number(env.PORT) : await freePort();
  let output = '';
  // DAEMON_NODE_ARGS carries flags NODE_OPTIONS refuses (--cpu-prof, --heap-prof) for profiling a benchmark run.
  const nodeArgs = (process.env.DAEMON_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // A key of the run's own unless one is given: otherwise the daemon generates its key file under ./data, in the checkout.
  const key = env.CONNECTIONS_KEY || env.CONNECTIONS_KEY_FILE ? {} : { CONNECTIONS_KEY: RUN_CONNECTIONS_KEY };
  // The simulators serve their PDFs from 127.0.0.1 over plain http, which downloads refuse by default.
  const localDownloads = { DOWNLOADS_ALLOW_PRIVATE_ADDRESSES: 'true' };
  const child = spawn(process.execPath, [...DAEMON_NODE_FLAGS, ...nodeArgs, DAEMON_ENTRY], {
    // The simulators are not on Zoho's hosts; a run may still set it to false.
    env: {
      RECORD_CRM_ALLOW_CUSTOM_DOMAINS: 'true',
      ...process.env,
      ...key,
      ...localDownloads,
      ...env,
      PORT: String(port),
      NODE_OPTIONS: process.env.DAEMON_NODE_OPTIONS ?? '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`daemon exited with ${child.exitCode}: ${output.slice(-2000)}`);
    const ready = await fetch(`${url}${probe}`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  if (Date.now() >= deadline) {
    child.kill('SIGKILL');
    throw new Error(`daemon not ${options.until ?? 'ready'}: ${output.slice(-2000)}`);
  }
  return {
    process: child,
    url,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
    },
  };
}

/** Peak and current resident memory of a process, in MiB (Linux). */
export function memoryOf(pid: number): { peakMiB: number; rssMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { peakMiB: Math.round(kib('VmHWM') / 1024), rssMiB: Math.round(kib('VmRSS') / 1024) };
}
