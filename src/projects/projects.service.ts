import { Injectable, Logger } from '@nestjs/common';
import { ServiceApiClient } from '../service-api/service-api.client.js';
import { factsOf, type ProjectFacts, type ProjectLike } from './project-facts.js';
import { GroupCommit } from '../common/group-commit.js';
import { ProjectRepository, type SeenProjectFacts } from './project.repository.js';

/** The values of a project that identify its customer or its job. */
export type ProjectKey = 'job_number' | 'email' | 'phone';

/** Projects read from the service (P4) in the background per list shown; the rest wait for the next showing. */
const BACKGROUND_READS_PER_CALL = 10;
/**
 * A project the service could not name (gone, or the service away) is not read again in the background for this
 * long: lists refresh every 10 s, and would otherwise ask P4 about it on each refresh.
 */
const UNREADABLE_FOR_MS = 15 * 60_000;
/** At most this many unreadable projects are remembered (then the memory starts again). */
const UNREADABLE_KEPT = 10_000;
/** P5 answers at most this many projects to a picker. */
const SEARCH_PAGE = 20;

/**
 * Project names beside ids: kept from project.created / project.updated, read with P4 the first time a screen
 * needs a project nobody told us about, and refreshed by every P5 search. Names are for people: a failed read
 * leaves the name unknown (null) rather than failing the screen.
 */
@Injectable()
export class ProjectsService {
  private readonly logger = new Logger(ProjectsService.name);
  /** Projects being read in the background, so that two screens do not read one twice. */
  private readonly reading = new Set<string>();
  /** Projects whose last background read failed, and when. */
  private readonly unreadable = new Map<string, number>();
  private readonly facts: GroupCommit<SeenProjectFacts>;

  constructor(
    private readonly repository: ProjectRepository,
    private readonly service: ServiceApiClient,
  ) {
    this.facts = new GroupCommit((seen) => this.repository.remember(seen));
  }

  /**
   * Keeps what an event, P4 or P5 said of projects, as true at `seenAt`. Routing calls this for every project event,
   * several at once: concurrent calls share one statement.
   */
  remember(projects: ProjectLike[], seenAt: Date): Promise<void> {
    return this.facts.add(projects.map((p) => ({ ...factsOf(p), seenAt })));
  }

  /**
   * What is known of these projects, by id; unless `readMissing` is false, the unknown ones are read from the service
   * in the background, for the next showing.
   */
  async known(projectIds: Iterable<string>, readMissing = true): Promise<Map<string, ProjectFacts>> {
    const ids = [...new Set(projectIds)];
    const found = new Map((await this.repository.findByIds(ids)).map((p) => [p.projectId, p]));
    if (readMissing) this.readInBackground(ids.filter((id) => !found.has(id)));
    return found;
  }

  /** Names by id (unknown ones absent), as `known`. */
  async names(projectIds: Iterable<string | null>, readMissing = true): Promise<Map<string, string>> {
    const known = await this.known(
      [...projectIds].filter((id): id is string => id !== null),
      readMissing,
    );
    return new Map([...known].map(([id, p]) => [id, p.name]));
  }

  /** One project, read from the service (P4) now when unknown; null when the service cannot say. */
  async one(projectId: string): Promise<ProjectFacts | null> {
    const [stored] = await this.repository.findByIds([projectId]);
    if (stored) return stored;
    return this.read(projectId);
  }

  /** The project as the service has it now (P4), kept; throws when the service cannot answer. */
  async current(projectId: string): Promise<ProjectFacts> {
    const seenAt = new Date();
    const project = await this.service.getProject(projectId);
    await this.remember([project], seenAt);
    return factsOf(project);
  }

  /** Which of a project's values (as suggestions compare them, by key) another project crm-sync knows holds too. */
  async keysHeldByOthers(projectId: string, wanted: Partial<Record<ProjectKey, string | null>>): Promise<Set<ProjectKey>> {
    return new Set((await this.repository.keysHeldByOthers(projectId, wanted)) as ProjectKey[]);
  }

  /** P5 on the name (first page), the answers kept. */
  async search(namePart: string): Promise<Array<ProjectFacts & { createdAt: string | null }>> {
    const seenAt = new Date();
    const projects = await this.service.searchProjects({ projectName: namePart, page: 1, perPage: SEARCH_PAGE });
    await this.remember(projects, seenAt);
    return projects.map((p) => ({ ...factsOf(p), createdAt: typeof p.created_at === 'string' ? p.created_at : null }));
  }

  private async read(projectId: string): Promise<ProjectFacts | null> {
    const seenAt = new Date();
    try {
      const project = await this.service.getProject(projectId);
      await this.remember([project], seenAt);
      return factsOf(project);
    } catch (err) {
      this.logger.warn(`project ${projectId}: its name could not be read (P4): ${(err as Error).message}`);
      return null;
    }
  }

  private readInBackground(projectIds: string[]): void {
    const now = Date.now();
    const wanted = projectIds.filter((id) => !this.reading.has(id) && !(now - (this.unreadable.get(id) ?? -Infinity) < UNREADABLE_FOR_MS));
    for (const id of wanted.slice(0, BACKGROUND_READS_PER_CALL)) {
      this.reading.add(id);
      void this.read(id)
        .then((found) => {
          if (found) return this.unreadable.delete(id);
          if (this.unreadable.size >= UNREADABLE_KEPT) this.unreadable.clear();
          this.unreadable.set(id, Date.now());
        })
        .finally(() => this.reading.delete(id));
    }
  }
}
