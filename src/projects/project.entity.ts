import { Column, Entity, PrimaryColumn } from 'typeorm';

/** What crm-sync knows of one of the service's projects, so that screens show its name beside its id. */
@Entity('project')
export class KnownProject {
  @PrimaryColumn({ name: 'project_id', type: 'text' })
  projectId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ name: 'customer_name', type: 'text', nullable: true })
  customerName: string | null;

  @Column({ name: 'customer_email', type: 'text', nullable: true })
  customerEmail: string | null;

  @Column({ name: 'customer_phone', type: 'text', nullable: true })
  customerPhone: string | null;

  @Column({ name: 'job_number', type: 'text', nullable: true })
  jobNumber: string | null;

  /** When what is stored was true: the delivery's receipt, or the time of the P4 / P5 read. An older fact never replaces it. */
  @Column({ name: 'seen_at', type: 'timestamptz' })
  seenAt: Date;

  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
