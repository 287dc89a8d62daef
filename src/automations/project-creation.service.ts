import { Injectable } from '@nestjs/common';
import { AutomationSettingsService } from '../crm-settings/automation-settings.service.js';
import type { CreateProjectPayload } from '../domain/actions.js';
import { OutboundError } from '../http/outbound-error.js';
import { ServiceApiClient } from '../service-api/service-api.client.js';
import type { Project } from '../service-api/service-api.types.js';
import { PermanentActionError } from '../actions/action.types.js';

/** The tag every project an automation creates carries. */
export const AUTOMATION_TAG = 'crm-sync';

const SEARCH_PAGE = 100;
/**
 * How far the service's clock may be behind ours: a project P2 made is dated by the service, in whole seconds, and is
 * still crm-sync's when dated up to this long before its entry was recorded.
 */
const CLOCK_MARGIN_MS = 60_000;
const MAX_SEARCH_PAGES = 100;

export interface ProjectFound {
  project: Project;
  /** False: the project existed already (a try whose P2 answer was lost created it). */
  created: boolean;
  /** The owner P2 was given; null when found. */
  owner: string | null;
  /** Why the sales rep is not the owner, when they were asked for and refused. */
  salesRepRefused?: string;
}

/**
 * Creates a record's project on the service, or finds the one an earlier try created. The name holds the CRM id, so
 * a project of that exact name is this record's, and the service keeps names unique: a first run sends P2 at once
 * (one call per project); a later run (an earlier one may have sent P2 and lost its answer, or died) looks it up by P5
 * first. P2 refused (400) is looked up by P5 too (the name is taken: an earlier P2 got through), then, when the sales
 * rep was the owner, tried once with the default owner.
 *
 * A project found by its name is adopted only when it is crm-sync's own (`adoptionRefusal`): someone may have made
 * one of that name by hand, or on purpose, and it would receive this record's work.
 */
@Injectable()
export class ProjectCreationService {
  constructor(
    private readonly service: ServiceApiClient,
    private readonly settings: AutomationSettingsService,
  ) {}

  /** `since`: when the entry was recorded, before its first try; a project of ours was created after it. */
  async findOrCreate(payload: CreateProjectPayload, firstRun: boolean, since: Date): Promise<ProjectFound> {
    const settings = payload.record.crm === 'appointment' ? await this.settings.appointmentCrm() : await this.settings.recordCrm();
    const salesRep = settings.owner_from_sales_rep ? (payload.sales_rep?.email?.trim() ?? '') : '';
    const owners = [salesRep, settings.owner ?? ''].filter((o) => o !== '');
    const adopt = (project: Project): ProjectFound => {
      const refusal = adoptionRefusal(project, owners, since);
      if (refusal) throw new PermanentActionError(`project "${project.name}" (${project.id}) exists on the service but is not crm-sync's: ${refusal}`);
      return { project, created: false, owner: null };
    };

    const existing = firstRun ? null : await this.findByName(payload.name);
    if (existing) return adopt(existing);

    const firstOwner = salesRep || settings.owner;
    if (!firstOwner) throw new PermanentActionError('no project owner: set the default owner in the automation settings');

    try {
      return { project: await this.create(payload, firstOwner), created: true, owner: firstOwner };
    } catch (err) {
      if (!isRefusal(err)) throw err;
      const found = await this.findByName(payload.name);
      if (found) return adopt(found);
      if (firstOwner !== salesRep || !settings.owner || settings.owner === salesRep) throw err;
      const refused = err.excerpt || `HTTP ${err.status}`;
      return { project: await this.create(payload, settings.owner), created: true, owner: settings.owner, salesRepRefused: refused };
    }
  }

  private create(payload: CreateProjectPayload, owner: string): Promise<Project> {
    const { name, customer, work_site_address, sales_rep, job_number } = payload;
    return this.service.createProject({ name, owner, customer, work_site_address, sales_rep, job_number, tags: [AUTOMATION_TAG] });
  }

  /**
   * P5 matches names containing the text; only the exact name is this record's project. Such a search finds a
   * handful, so a page shorter than asked for is taken as the last (one call, not two, per creation).
   */
  private async findByName(name: string): Promise<Project | null> {
    for (let page = 1; page <= MAX_SEARCH_PAGES; page++) {
      const projects = await this.service.searchProjects({ projectName: name, page, perPage: SEARCH_PAGE });
      const found = projects.find((p) => p.name === name);
      if (found) return found;
      if (projects.length < SEARCH_PAGE) return null;
    }
    throw new Error(`P5 for "${name}" still had projects after ${MAX_SEARCH_PAGES} pages`);
  }
}

/**
 * Why a project found by its name is not the one an earlier try of this entry made, or null when it is: it must carry
 * the `crm-sync` tag P2 was sent, be created after the entry was recorded (less the clock margin), and, when the
 * service's answer names an owner (the published Project shape has none: service-api.md), have one crm-sync sends.
 * Its name (which holds the CRM record's id) is checked by the caller.
 */
export function adoptionRefusal(project: Project, owners: string[], since: Date): string | null {
  const reasons: string[] = [];
  if (!Array.isArray(project.tags) || !project.tags.includes(AUTOMATION_TAG)) reasons.push(`it has no "${AUTOMATION_TAG}" tag`);
  const created = serviceTime(project.created_at);
  if (created === null) reasons.push('its creation time is unknown');
  else if (created < since.getTime() - CLOCK_MARGIN_MS) {
    reasons.push(`it was created at ${project.created_at}, before this entry was recorded (${since.toISOString()})`);
  }
  const owner = (project as { owner?: unknown }).owner;
  if (typeof owner === 'string' && owner !== '' && !owners.includes(owner)) reasons.push(`its owner ${owner} is not the one crm-sync sends`);
  return reasons.length > 0 ? `${reasons.join('; ')}. Rename or remove that project on the service (or map the record by hand), then retry` : null;
}

/** A project's timestamp (`YYYY-MM-DDTHH:MM:SS`, UTC, per service-api.md; a zone, when given, is taken) in ms. */
function serviceTime(value: unknown): number | null {
  if (typeof value !== 'string' || value === '') return null;
  const at = Date.parse(/([zZ]|[+-]\d\d:?\d\d)$/.test(value) ? value : `${value}Z`);
  return Number.isNaN(at) ? null : at;
}

function isRefusal(err: unknown): err is OutboundError {
  return err instanceof OutboundError && err.failure === 'rejected';
}
