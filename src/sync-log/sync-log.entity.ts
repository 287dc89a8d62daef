import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { CrmName, SyncTrigger } from '../domain/actions.js';

export const SYNC_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'skipped', 'waiting'] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

/**
 * One action of the daemon and what became of it. An entry is both the admin's record of what happened and the
 * durable description of the work: its job on the queue carries only the entry id, so a lost queue loses nothing.
 */
@Entity('sync_log')
@Index(['status', 'updatedAt'])
@Index(['projectId', 'createdAt'])
@Index(['kind', 'createdAt'])
export class SyncLogEntry {
  /** bigint: TypeORM hands it over as a string, which is what the admin API shows. */
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'text' })
  kind: string;

  @Column({ type: 'text' })
  trigger: SyncTrigger;

  @Column({ type: 'text', nullable: true })
  crm: CrmName | null;

  @Column({ name: 'project_id', type: 'text', nullable: true })
  projectId: string | null;

  /** The appointment id, or `Module/record id` of the record CRM. */
  @Column({ type: 'text', nullable: true })
  target: string | null;

  @Column({ type: 'text' })
  status: SyncStatus;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  /** `attempts` when an admin last retried the entry: the runs since then count against the budget of tries. */
  @Column({ name: 'retry_base', type: 'int', default: 0 })
  retryBase: number;

  /** The last failure's reason. */
  @Column({ type: 'text', nullable: true })
  error: string | null;

  /** What the action did or why it was skipped, in a sentence for the admin. */
  @Column({ type: 'text', nullable: true })
  detail: string | null;

  /** The action's input; enough to run it again. */
  @Column({ type: 'jsonb', default: {} })
  payload: Record<string, unknown>;

  /** Makes creating the same action twice (a re-run of the code that creates it) a no-op. */
  @Column({ name: 'dedupe_key', type: 'text', nullable: true, unique: true })
  dedupeKey: string | null;

  /** Joins actions of the same kind and target while one is still queued (a burst of drawing events). */
  @Column({ name: 'coalesce_key', type: 'text', nullable: true })
  coalesceKey: string | null;

  @Column({ name: 'inbox_id', type: 'bigint', nullable: true })
  inboxId: string | null;

  @Column({ name: 'parent_id', type: 'bigint', nullable: true })
  parentId: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;

  @Column({ name: 'duration_ms', type: 'int', nullable: true })
  durationMs: number | null;

  /** When the relay handed the entry's job to its queue; null while it waits for the relay. */
  @Column({ name: 'enqueued_at', type: 'timestamptz', nullable: true })
  enqueuedAt: Date | null;

  /** The entry runs no earlier than this (a burst of drawing events gathers behind it). */
  @Column({ name: 'not_before', type: 'timestamptz', nullable: true })
  notBefore: Date | null;

  /** The admin (token name) whose request created the entry; null for the daemon's own work. */
  @Column({ type: 'text', nullable: true })
  actor: string | null;
}
