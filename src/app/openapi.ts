import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { existsSync } from 'node:fs';

/**
 * The OpenAPI document the daemon serves at `/docs` (and `/docs-json`); `scripts/api-types.mjs` builds the same one
 * from an app in preview mode to write the console's types (`console/api-types.d.ts`).
 */
export async function apiDocument(app: INestApplication): Promise<OpenAPIObject> {
  // What the @nestjs/swagger CLI plugin read from the DTOs at build time (absent when running from sources).
  const pluginMetadata = new URL('../metadata.js', import.meta.url);
  if (existsSync(pluginMetadata)) {
    await SwaggerModule.loadPluginMetadata(async () => ((await import(pluginMetadata.href)) as { default: () => Promise<Record<string, unknown>> }).default());
  }
  return SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('crm-sync')
      .setDescription('Admin API of crm-sync, and the webhook endpoints the service calls.')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' }, 'admin')
      .build(),
  );
}
