import { Global, Module, type DynamicModule } from '@nestjs/common';
import { DatabaseService } from './database.service.js';

@Global()
@Module({})
export class DatabaseModule {
  static forRoot(): DynamicModule {
    return { module: DatabaseModule, providers: [DatabaseService], exports: [DatabaseService] };
  }
}
