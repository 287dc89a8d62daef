import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DatabaseUnavailableError } from '../database/database.errors.js';

/**
 * Maps errors to answers: HttpExceptions as Nest shapes them, an unreachable database as 503 (the caller may try
 * again), anything else as a 500 whose body names no internals.
 */
@Catch()
export class DomainExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(DomainExceptionFilter.name);

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (exception instanceof HttpException) {
      const body = exception.getResponse();
      void reply.status(exception.getStatus()).send(typeof body === 'string' ? { statusCode: exception.getStatus(), message: body } : body);
      return;
    }
    if (exception instanceof DatabaseUnavailableError) {
      void reply.status(503).send({ statusCode: 503, message: 'storage unavailable, try again later' });
      return;
    }
    const status = (exception as { statusCode?: number }).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      void reply.status(status).send({ statusCode: status, message: (exception as Error).message });
      return;
    }
    this.logger.error(exception instanceof Error ? exception : String(exception));
    void reply.status(500).send({ statusCode: 500, message: 'internal error' });
  }
}
