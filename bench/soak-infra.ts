import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './support.js';

const run = promisify(execFile);
const PG_BIN = '/usr/local/bin';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Postgres refuses to run as root: as root, its tools run as the `postgres` user. */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/** A Postgres cluster of the soak's own, in `dir`, on 127.0.0.1 with trust auth, so the soak may stop and restart it. */
export class PgCluster {
  readonly dataDir: string;
  private readonly socketDir: string;
  private readonly logFile: string;
  port = 0;

  constructor(private readonly dir: string) {
    this.dataDir = join(dir, 'pg');
    this.socketDir = join(dir, 'pg-socket');
    this.logFile = join(dir, 'pg.log');
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}`;
  }

  async init(): Promise<void> {
    this.port = await freePort();
    mkdirSync(this.socketDir, { recursive: true });
    if (process.getuid?.() === 0) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const uid = Number(stdout.trim());
      const { stdout: gid } = await run('id', ['-g', 'postgres']);
      for (const path of [this.dir, this.socketDir]) chownSync(path, uid, Number(gid.trim()));
    }
    await this.tool('initdb', ['-D', this.dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    await this.start();
  }

  async start(): Promise<void> {
    // fsync off: the soak restarts Postgres cleanly, never cuts its power, and shares the machine.
    const options = `-p ${this.port} -k ${this.socketDir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    await this.tool('pg_ctl', ['-D', this.dataDir, '-o', options, '-l', this.logFile, '-w', '-t', '60', 'start']);
  }

  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.tool('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
  }

  private async tool(name: string, args: string[]): Promise<void> {
    const [command, argv] = asPostgres(join(PG_BIN, name), args);
    await run(command, argv, { cwd: this.dir });
  }
}

/** A `redis-server` of the soak's own: nothing saved, so a restart comes back empty. */
export class RedisServer {
  port = 0;
  private child?: ChildProcess;

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.port ||= await freePort();
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    this.child = child;
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
      if (await this.ping()) return;
      await sleep(50);
    }
    throw new Error('redis-server did not answer PING');
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  /** Ends the process at once (nothing is saved anyway). Safe to call from an exit handler. */
  killNow(): void {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  async flushAll(): Promise<void> {
    const redis = new Redis(this.url, { maxRetriesPerRequest: 1, lazyConnect: true });
    try {
      await redis.connect();
      await redis.flushall();
    } finally {
      redis.disconnect();
    }
  }

  private async ping(): Promise<boolean> {
    const redis = new Redis(this.url, { maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      return (await redis.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      redis.disconnect();
    }
  }
}

/** Stops a cluster from an exit handler, where nothing may be awaited. */
export function stopClusterNow(cluster: PgCluster): void {
  const [command, argv] = asPostgres(join(PG_BIN, 'pg_ctl'), ['-D', cluster.dataDir, '-m', 'immediate', 'stop']);
  spawnSync(command, argv, { stdio: 'ignore', timeout: 15_000 });
}
