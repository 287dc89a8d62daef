import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export const WEBHOOK_ENDPOINTS = ['events', 'appointment-prompt', 'record-prompt'] as const;
export type WebhookEndpoint = (typeof WEBHOOK_ENDPOINTS)[number];

/** `received`: stored, not yet routed; `routed`: turned into sync actions; `ignored`: unknown event. */
export type InboxStatus = 'received' | 'routed' | 'ignored' | 'failed';

/** A webhook delivery exactly as it arrived, written before the service gets its 200. */
@Entity('webhook_inbox')
@Index(['bodyHash', 'receivedAt'])
@Index(['status', 'receivedAt'])
export class InboxDelivery {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'text' })
  endpoint: WebhookEndpoint;

  @Column({ type: 'text', nullable: true })
  event: string | null;

  /** The raw bytes, so a later reading never depends on a re-serialisation. */
  @Column({ type: 'bytea' })
  body: Buffer;

  /** sha256 of endpoint and body: equal re-deliveries share it. */
  @Column({ name: 'body_hash', type: 'bytea' })
  bodyHash: Buffer;

  @Column({ type: 'text' })
  status: InboxStatus;

  @Column({ type: 'int', default: 0 })
  duplicates: number;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ name: 'received_at', type: 'timestamptz', default: () => 'now()' })
  receivedAt: Date;

  @Column({ name: 'routed_at', type: 'timestamptz', nullable: true })
  routedAt: Date | null;

  /** The project the delivery concerns, written when it is routed (null before, or when it names none). */
  @Column({ name: 'project_id', type: 'text', nullable: true })
  projectId: string | null;

  /** How many times an admin replayed it (`POST /api/deliveries/:id/replay`); part of each replay's dedupe keys. */
  @Column({ type: 'int', default: 0 })
  replays: number;

  /** When the relay put the delivery's route job on the queue; null while it waits for the relay. */
  @Column({ name: 'enqueued_at', type: 'timestamptz', nullable: true })
  enqueuedAt: Date | null;
}
