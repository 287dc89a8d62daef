import { Module, type OnModuleInit } from '@nestjs/common';
import { RelayModule } from '../relay/relay.module.js';
import { ActionRegistry } from '../sync-log/action-registry.js';
import { ReconcileController } from './reconcile.controller.js';
import { ReconcileHandler } from './reconcile.handler.js';
import { ReconcileService } from './reconcile.service.js';

@Module({
  imports: [RelayModule],
  controllers: [ReconcileController],
  providers: [ReconcileHandler, ReconcileService],
})
export class ReconcileModule implements OnModuleInit {
  constructor(
    private readonly registry: ActionRegistry,
    private readonly handler: ReconcileHandler,
  ) {}

  onModuleInit(): void {
    this.registry.register(this.handler);
  }
}
