import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { Entities } from './data-source-options.js';
import { DATABASE_ENTITIES, DatabaseService } from './database.service.js';

@Global()
@Module({})
export class DatabaseModule {
  /** The entities come from the app, which knows every feature module; the database layer imports none of them. */
  static forRoot(entities: Entities): DynamicModule {
    return { module: DatabaseModule, providers: [{ provide: DATABASE_ENTITIES, useValue: entities }, DatabaseService], exports: [DatabaseService] };
  }
}
