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
 */
@Injectable()
export class ProjectCreationService {
  constructor(
    private readonly service: ServiceApiClient,
    private readonly settings: AutomationSettingsService,
  ) {}

  async findOrCreate(payload: CreateProjectPayload, firstRun: boolean): Promise<ProjectFound> {
    const existing = firstRun ? null : await this.findByName(payload.name);
    if (existing) return { project: existing, created: false, owner: null };

    const settings = payload.record.crm === 'appointment' ? await this.settings.appointmentCrm() : await this.settings.recordCrm();
    const salesRep = settings.owner_from_sales_rep ? (payload.sales_rep?.email?.trim() ?? '') : '';
    const firstOwner = salesRep || settings.owner;
    if (!firstOwner) throw new PermanentActionError('no project owner: set the default owner in the automation settings');

    try {
      return { project: await this.create(payload, firstOwner), created: true, owner: firstOwner };
    } catch (err) {
      if (!isRefusal(err)) throw err;
      const found = await this.findByName(payload.name);
      if (found) return { project: found, created: false, owner: null };
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

function isRefusal(err: unknown): err is OutboundError {
  return err instanceof OutboundError && err.failure === 'rejected';
}
