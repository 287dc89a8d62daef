import type { LoggerService, LogLevel } from '@nestjs/common';
import { pino, type Logger } from 'pino';

/** Header and field names whose values never reach a log line, whatever code logs them. */
export const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'token',
  '*.token',
  'secret',
  '*.secret',
  'password',
  '*.password',
  'access_token',
  '*.access_token',
  'refresh_token',
  '*.refresh_token',
  'client_secret',
  '*.client_secret',
];

export function createPino(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino({ level, base: { service: 'crm-sync' }, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination as never);
}

/** Nest's logger interface on top of pino: JSON lines with the Nest context as `context`. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pino: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }
  setLogLevels(levels: LogLevel[]): void {
    if (levels.length === 0) this.pino.level = 'silent';
  }

  private write(level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal', message: unknown, params: unknown[]): void {
    const context = typeof params[params.length - 1] === 'string' ? (params.pop() as string) : undefined;
    const fields: Record<string, unknown> = context ? { context } : {};
    const stack = params.find((p) => typeof p === 'string' && p.includes('\n    at '));
    if (stack) fields.stack = stack;
    if (message instanceof Error) this.pino[level]({ ...fields, err: message }, message.message);
    else if (typeof message === 'object' && message !== null) this.pino[level]({ ...fields, ...message });
    else this.pino[level](fields, String(message));
  }
}
