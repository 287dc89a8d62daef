import { Injectable, Logger } from '@nestjs/common';
import type { CrmName } from '../domain/actions.js';
import { MappingRepository } from './mapping.repository.js';
import { targetKey, type CrmTarget } from './target-names.service.js';

/** A CRM's web addresses of its records: the address of each target it knows (`Module/record id`, an appointment id). */
export type RecordLinker = (targets: string[]) => Promise<Map<string, string>>;

/**
 * Where each CRM record opens in its CRM (`web_url` in the API's answers, docs/operations.md "Links to the CRMs").
 * Zoho's are made from the organization and the data centre (the record CRM module registers how, as mappings cannot
 * import it); an appointment's is the `web_url` its CRM gave, kept on its mapping when the appointment was read.
 */
@Injectable()
export class CrmLinksService {
  private readonly logger = new Logger(CrmLinksService.name);
  private readonly linkers = new Map<CrmName, RecordLinker>();

  constructor(private readonly mappings: MappingRepository) {}

  registerLinker(crm: CrmName, linker: RecordLinker): void {
    this.linkers.set(crm, linker);
  }

  /** The web addresses known of these targets, by `crm:target`; a CRM that cannot say gives none (never an error). */
  async linksOf(entries: Array<{ crm: string | null; target: string | null }>): Promise<Map<string, string>> {
    const targets = entries.flatMap((e): CrmTarget[] =>
      e.target && (e.crm === 'appointment' || e.crm === 'record') ? [{ crm: e.crm, target: e.target }] : [],
    );
    const links = new Map<string, string>();
    if (targets.length === 0) return links;
    const kept = await this.mappings.recordUrlsOf(targets);
    for (const [key, url] of kept) links.set(key, url);
    for (const [crm, linker] of this.linkers) {
      const mine = [...new Set(targets.filter((t) => t.crm === crm).map((t) => t.target))];
      if (mine.length === 0) continue;
      try {
        for (const [target, url] of await linker(mine)) links.set(targetKey({ crm, target }), url);
      } catch (err) {
        this.logger.warn(`the ${crm} CRM's record addresses could not be made: ${(err as Error).message}`);
      }
    }
    return links;
  }
}
