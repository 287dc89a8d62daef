import 'reflect-metadata';
import { createApp } from './app/create-app.js';
import { ConfigError } from './config/environment.js';
import { loadConfig, type AppConfig } from './config/app-config.js';
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

const config = configOrExit();
const logger = new PinoNestLogger(createPino(config.logLevel));
const app = await createApp(config, { logger });
await app.listen({ port: config.port, host: '0.0.0.0' });
const crms = [config.appointmentCrm && 'appointment', config.recordCrm && 'record'].filter(Boolean);
logger.log(
  { port: config.port, crms },
  `crm-sync listening on port ${config.port}; CRMs enabled: ${crms.length > 0 ? crms.join(', ') : 'none'}`,
  'Main',
);
