import { Injectable } from '@nestjs/common';

export interface RelayListener {
  /** Deliveries were stored (whatever their status: the relay measures the intake's pace); `routable`: some need routing. */
  deliveriesStored(count: number, routable: boolean): void;
  /** Actions were recorded or queued again. */
  actionsWritten(): void;
}

/**
 * How writers of stored work tell the relay there is something to put on a queue, without depending on it (the
 * relay depends on their modules). Only this process's relay listens: what another replica writes, its own relay
 * relays, and the relays' timers find whatever a crashed replica left.
 */
@Injectable()
export class RelaySignalService {
  private listener?: RelayListener;

  listen(listener: RelayListener): void {
    this.listener = listener;
  }

  deliveriesStored(count: number, routable: boolean): void {
    this.listener?.deliveriesStored(count, routable);
  }

  workWritten(): void {
    this.listener?.actionsWritten();
  }
}
