import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { withAdvisoryLock } from './advisory-lock.js';
import { DatabaseUnavailableError } from './database.errors.js';
import { buildDataSourceOptions, CONNECTION_TIMEOUT_MS } from './data-source-options.js';
import { ensureDatabase } from './ensure-database.js';

const MIGRATION_LOCK_KEY = 8_127_303_551; // any constant shared by every replica

/**
 * Connections of the pool of the per-delivery statements (`prepared`): they are short, and the webhook intake's write,
 * the routing of deliveries and the workers' recording of actions share it.
 */
const STATEMENT_POOL_SIZE = 10;

/**
 * Owns the TypeORM data source. The daemon must start and answer health checks even while Postgres is down,
 * so connecting, creating the database and migrating happen in the background, retried until they succeed.
 */
@Injectable()
export class DatabaseService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DatabaseService.name);
  private readonly source: DataSource;
  private statements?: pg.Pool;
  private connecting?: Promise<void>;
  private stopped = false;
  private lastError = 'not connected yet';
  private readyWaiters: Array<{ wake: () => void; abandon: () => void }> = [];

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.source = new DataSource(buildDataSourceOptions(config.databaseUrl));
  }

  get isReady(): boolean {
    return this.source.isInitialized;
  }

  get dataSource(): DataSource {
    if (!this.source.isInitialized) throw new DatabaseUnavailableError(this.lastError);
    return this.source;
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  query<T = unknown>(sql: string, params?: unknown[]): Promise<T> {
    return this.dataSource.query(sql, params);
  }

  /**
   * A statement run per webhook delivery, as a named prepared statement: Postgres parses and plans it once per
   * connection instead of on every call, which is most of the cost of such a small query. These run on a small pool
   * of their own (pg's public API; TypeORM does not expose its pool), so each of its connections prepares them once,
   * and the intake never waits for a connection behind the workers' transactions and sweeps on TypeORM's pool.
   */
  async prepared<T>(name: string, sql: string, params: unknown[]): Promise<T[]> {
    const pool = this.statements;
    if (!pool || !this.source.isInitialized) throw new DatabaseUnavailableError(this.lastError);
    const result = await pool.query({ name, text: sql, values: params });
    return result.rows as T[];
  }

  /**
   * The rows of an INSERT/UPDATE/DELETE ... RETURNING. (TypeORM's `query` answers those as `[rows, count]` on
   * Postgres, but a SELECT as plain rows; this reads both.)
   */
  async returning<T>(sql: string, params?: unknown[]): Promise<T[]> {
    const result: unknown = await this.dataSource.query(sql, params);
    if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
    return result as T[];
  }

  /** Resolves once the schema is ready; rejects with DatabaseUnavailableError after `timeoutMs`. */
  whenReady(timeoutMs = 60_000): Promise<void> {
    if (this.isReady) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new DatabaseUnavailableError(this.lastError)), timeoutMs);
      timer.unref();
      this.readyWaiters.push({
        wake: () => {
          clearTimeout(timer);
          resolve();
        },
        abandon: () => {
          clearTimeout(timer);
          reject(new DatabaseUnavailableError('shutting down'));
        },
      });
    });
  }

  onApplicationBootstrap(): void {
    this.connecting = this.connectUntilReady();
  }

  /** For start-up code and tests that need the schema before going on. */
  async connect(): Promise<void> {
    this.connecting ??= this.connectUntilReady();
    await this.connecting;
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.readyWaiters.splice(0).forEach((waiter) => waiter.abandon());
    await this.connecting?.catch(() => undefined);
    const statements = this.statements;
    this.statements = undefined;
    await Promise.all([statements?.end(), this.source.isInitialized ? this.source.destroy() : undefined]);
  }

  /** Round trip with a short time-out, for readiness. */
  async ping(timeoutMs = 2_000): Promise<void> {
    const source = this.dataSource;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([source.query('SELECT 1'), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async connectUntilReady(): Promise<void> {
    for (let attempt = 1; !this.stopped; attempt++) {
      try {
        await this.initialize();
        this.logger.log('database ready, migrations applied');
        this.readyWaiters.splice(0).forEach((waiter) => waiter.wake());
        return;
      } catch (err) {
        this.lastError = describe(err);
        if (attempt === 1 || attempt % 15 === 0) this.logger.warn(`database not ready (${this.lastError}); retrying`);
        await new Promise((r) => setTimeout(r, Math.min(2_000, 250 * attempt)));
      }
    }
  }

  private async initialize(): Promise<void> {
    await ensureDatabase(this.config.databaseUrl);
    await this.migrateUnderLock();
    if (!this.source.isInitialized) await this.source.initialize();
    this.statements ??= this.createStatementPool();
  }

  private createStatementPool(): pg.Pool {
    const pool = new pg.Pool({
      connectionString: this.config.databaseUrl,
      connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
      max: STATEMENT_POOL_SIZE,
    });
    // An idle connection that breaks (Postgres restarted) is dropped by the pool; without a listener it would crash the process.
    pool.on('error', (err) => this.logger.warn(`database connection lost: ${describe(err)}`));
    return pool;
  }

  /** Replicas starting together would race through the same migrations; a session advisory lock serialises them. */
  private async migrateUnderLock(): Promise<void> {
    await withAdvisoryLock(this.config.databaseUrl, MIGRATION_LOCK_KEY, async () => {
      const migrator = new DataSource(buildDataSourceOptions(this.config.databaseUrl));
      await migrator.initialize();
      try {
        await migrator.runMigrations({ transaction: 'each' });
      } finally {
        await migrator.destroy();
      }
    });
  }
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string };
  // Connection errors from pg name host and port but never the password; keep the message short anyway.
  return [e.code, e.message].filter(Boolean).join(' ').slice(0, 200) || 'unknown error';
}
