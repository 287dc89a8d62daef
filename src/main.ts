import 'reflect-metadata';
import { createApp } from './app/create-app.js';
import { ConfigError } from './config/environment.js';
import { loadConfig, type AppConfig } from './config/app-config.js';
import { ConnectionsService } from './connections/connections.service.js';
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

const SHUTDOWN_DEADLINE_MS = 15_000;

const config = configOrExit();
// A graceful stop waits for running jobs; with Redis gone it could wait forever, so it gets a deadline.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => setTimeout(() => process.exit(1), SHUTDOWN_DEADLINE_MS).unref());
}
const pinoLogger = createPino(config.logLevel);
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
