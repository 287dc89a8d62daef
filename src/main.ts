import 'reflect-metadata';
import { createApp } from './app/create-app.js';
import { ConfigError } from './config/environment.js';
import { loadConfig, type AppConfig } from './config/app-config.js';
import { ConnectionsService } from './connections/connections.service.js';
import { handBackRunningJobs } from './queues/running-jobs.js';
import { publicUrlOf } from './connections/public-url.js';
import { createPino, PinoNestLogger } from './logging/pino-logger.js';

function configOrExit(): AppConfig {
  try {
    return loadConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const problem of err.problems) process.stderr.write(`config error: ${problem.variable} ${problem.reason}\n`);
    process.exit(1);
  }
}

/**
 * How long a graceful stop waits for running jobs before it hands them back: a job that needs longer runs again on
 * another replica at once, so a stop delays no work by more than this (the recovery goal is 10 s; Docker's stop
 * waits 10 s before it kills).
 */
const SHUTDOWN_DEADLINE_MS = 7_000;
/** The end of the deadline, kept to hand the jobs still running back to their queues. */
const HAND_BACK_MS = 2_000;

const config = configOrExit();
const pinoLogger = createPino(config.logLevel);
// A graceful stop waits for running jobs; with Redis gone it could wait forever, so it gets a deadline. The jobs still
// running then go back to their queues, so another replica takes them at once rather than when their locks expire.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => setTimeout(() => void handBackAndExit(), SHUTDOWN_DEADLINE_MS - HAND_BACK_MS).unref());
}
const app = await createApp(config, { logger: new PinoNestLogger(pinoLogger) });
await app.listen({ port: config.port, host: '0.0.0.0' });
const crms = await enabledCrms(app.get(ConnectionsService));
pinoLogger.info(
  { context: 'Main', port: config.port, crms, console: `${publicUrlOf(config)}/admin` },
  `crm-sync listening on port ${config.port}; console ${publicUrlOf(config)}/admin; CRMs enabled: ${crms.length > 0 ? crms.join(', ') : 'none (connect them in the console)'}`,
);

/** The CRMs whose connection is set, in the environment or the console (the console's once the database answers). */
async function enabledCrms(connections: ConnectionsService): Promise<string[]> {
  const states = await connections.states().catch(() => null);
  if (!states) return ['unknown until the database is ready'];
  const set = (name: string) => states.some((s) => s.name === name && s.settings !== null);
  return [set('appointment_crm') && 'appointment', set('record_crm') && 'record'].filter((crm): crm is string => Boolean(crm));
}

async function handBackAndExit(): Promise<never> {
  const handedBack = await Promise.race([handBackRunningJobs(), new Promise<null>((done) => setTimeout(() => done(null), HAND_BACK_MS))]).catch(() => null);
  pinoLogger.warn({ context: 'Main', handedBack }, `stop deadline reached: ${handedBack ?? 'unknown'} running job(s) handed back to their queues; exiting`);
  process.exit(1);
}
