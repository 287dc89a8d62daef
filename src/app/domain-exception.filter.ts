import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DatabaseUnavailableError } from '../database/database.errors.js';

/**
 * Maps errors to answers: HttpExceptions as Nest shapes them, an unreachable database as 503 (the caller may try
 * again), anything else as a 500 whose body names no internals. A route that does not exist answers 404 with
 * `code: "route_not_found"`, so a client tells it from a missing record without reading the text.
 */
export const ROUTE_NOT_FOUND = 'route_not_found';

@Catch()
export class DomainExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(DomainExceptionFilter.name);

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (exception instanceof HttpException) {
      const response = exception.getResponse();
      const body = typeof response === 'string' ? { statusCode: exception.getStatus(), message: response } : response;
      const noRoute = exception.getStatus() === 404 && host.switchToHttp().getRequest<FastifyRequest>().is404;
      void reply.status(exception.getStatus()).send(noRoute ? { ...body, code: ROUTE_NOT_FOUND } : body);
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
