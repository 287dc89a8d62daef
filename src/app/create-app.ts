import type { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { bullBoard } from '../operations/bull-board.js';
import { adminConsole } from './console-static.js';
import type { AppConfig } from '../config/app-config.js';
import { AppModule } from './app.module.js';
import { apiDocument } from './openapi.js';
import { registerBodyParsers } from '../common/body-parsers.js';
import { UntrustedForwarding } from '../auth/untrusted-forwarding.js';
import { DomainExceptionFilter } from './domain-exception.filter.js';
import { validationPipe } from '../common/validation-errors.js';

export interface CreateAppOptions {
  logger?: LoggerService | false;
}

/** The daemon's HTTP application, ready to `listen`; used by main.ts and by the e2e tests alike. */
export async function createApp(config: AppConfig, options: CreateAppOptions = {}): Promise<NestFastifyApplication> {
  // Only the proxies named in TRUST_PROXY may set the client's address and protocol (X-Forwarded-For / -Proto): the
  // sign-in limits count per address, and a header any client can send would let it pick its own.
  const trustProxy = config.trustProxy.length > 0 ? config.trustProxy : false;
  const adapter = new FastifyAdapter({ trustProxy, bodyLimit: 5 * 1024 * 1024 });
  registerBodyParsers(adapter.getInstance());
  if (!trustProxy) {
    const forwarding = new UntrustedForwarding();
    adapter.getInstance().addHook('onRequest', (request, _reply, done) => {
      forwarding.check(request.headers, request.ip);
      done();
    });
  }
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    bodyParser: false,
    logger: options.logger ?? false,
    abortOnError: false,
  });
  app.useGlobalPipes(validationPipe());
  app.useGlobalFilters(new DomainExceptionFilter());
  app.enableShutdownHooks();
  await app.register(adminConsole); // GET /admin: the console's static files
  await app.register(bullBoard(app)); // /admin/queues: Bull Board, admin role

  SwaggerModule.setup('docs', app, await apiDocument(app));
  return app;
}
