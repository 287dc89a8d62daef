import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../database/database.service.js';
import type { ProjectFacts } from './project-facts.js';

/** A project's facts and when they were true. */
export type SeenProjectFacts = ProjectFacts & { seenAt: Date };

interface ProjectRow {
  project_id: string;
  name: string;
  customer_name: string | null;
  customer_email: string | null;
  customer_phone: string | null;
  job_number: string | null;
}

/** Every statement on `project`: what crm-sync knows of the service's projects, by primary key. */
@Injectable()
export class ProjectRepository {
  constructor(private readonly database: DatabaseService) {}

  /**
   * Stores each project's facts as seen at its `seenAt`, in one statement (the latest of a project's when it comes
   * twice). A row seen later is kept: a delivery routed late (a replay, a retry) or a P4 answer read before a rename
   * never puts an old name back. Rows are written in project id order, so two replicas' statements never deadlock.
   */
  async remember(seen: SeenProjectFacts[]): Promise<void> {
    if (seen.length === 0) return;
    const col = <T>(pick: (f: SeenProjectFacts) => T) => seen.map(pick);
    await this.database.query(
      `INSERT INTO project (project_id, name, customer_name, customer_email, customer_phone, job_number, seen_at)
       SELECT DISTINCT ON (t.project_id) t.project_id, t.name, t.customer_name, t.customer_email, t.customer_phone, t.job_number, t.seen_at
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])
              AS t(project_id, name, customer_name, customer_email, customer_phone, job_number, seen_at)
        ORDER BY t.project_id, t.seen_at DESC
       ON CONFLICT (project_id) DO UPDATE
          SET name = EXCLUDED.name, customer_name = EXCLUDED.customer_name, customer_email = EXCLUDED.customer_email,
              customer_phone = EXCLUDED.customer_phone, job_number = EXCLUDED.job_number, seen_at = EXCLUDED.seen_at, updated_at = now()
        WHERE project.seen_at <= EXCLUDED.seen_at`,
      [
        col((f) => f.projectId),
        col((f) => f.name),
        col((f) => f.customer.name),
        col((f) => f.customer.email),
        col((f) => f.customer.phone),
        col((f) => f.jobNumber),
        col((f) => f.seenAt),
      ],
    );
  }

  async findByIds(projectIds: string[]): Promise<ProjectFacts[]> {
    if (projectIds.length === 0) return [];
    const rows = await this.database.query<ProjectRow[]>(
      `SELECT project_id, name, customer_name, customer_email, customer_phone, job_number FROM project WHERE project_id = ANY($1::text[])`,
      [projectIds],
    );
    return rows.map((r) => ({
      projectId: r.project_id,
      name: r.name,
      customer: { name: r.customer_name, email: r.customer_email, phone: r.customer_phone },
      jobNumber: r.job_number,
    }));
  }

  /**
   * Which of these values (as suggestions compare them: job numbers and e-mails trimmed and lower-cased, phones on their
   * last 10 digits) another project holds as well.
   */
  async keysHeldByOthers(projectId: string, wanted: { job_number?: string | null; email?: string | null; phone?: string | null }): Promise<string[]> {
    const rows = await this.database.query<Array<{ key: string }>>(
      `SELECT DISTINCT k.key FROM project p
         CROSS JOIN LATERAL (VALUES
           ('job_number', lower(btrim(p.job_number)) = $2),
           ('email', lower(btrim(p.customer_email)) = $3),
           ('phone', right(regexp_replace(coalesce(p.customer_phone, ''), '\\D', '', 'g'), 10) = $4)
         ) AS k(key, held)
        WHERE p.project_id <> $1 AND k.held`,
      [projectId, wanted.job_number ?? null, wanted.email ?? null, wanted.phone ?? null],
    );
    return rows.map((r) => r.key);
  }
}
