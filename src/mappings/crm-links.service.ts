import { Injectable, Logger, SetMetadata, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { decoratedMethods } from '../discovery/decorated-methods.js';
import type { CrmName } from '../domain/actions.js';
import { MappingRepository } from './mapping.repository.js';
import { targetKey, type CrmTarget } from './crm-target.js';

/** A CRM's web addresses of its records: the address of each target it knows (`Module/record id`, an appointment id). */
export type RecordLinker = (targets: string[]) => Promise<Map<string, string>>;

const RECORD_LINKS = 'crm-sync:record-links';

/** The CRM a method was marked with by `@RecordLinks`, if it was. */
export function recordLinksOf(method: unknown): { crm: CrmName } | undefined {
  return typeof method === 'function' ? (Reflect.getMetadata(RECORD_LINKS, method) as { crm: CrmName } | undefined) : undefined;
}

/**
 * Marks a provider's method as the maker of `crm`'s record addresses (a CRM module's: mappings cannot import it).
 * CrmLinksService finds it among the providers at start; two of one CRM stop the start.
 */
export function RecordLinks(crm: CrmName) {
  return <M extends RecordLinker>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<M>): void => {
    SetMetadata(RECORD_LINKS, { crm })(target, key, descriptor);
  };
}

/**
 * Where each CRM record opens in its CRM (`web_url` in the API's answers, docs/operations.md "Links to the CRMs").
 * Zoho's are made from the organization and the data centre (the record CRM module says how with a `@RecordLinks`
 * method, as mappings cannot import it); an appointment's is the `web_url` its CRM gave, kept on its mapping when the appointment was read.
 */
@Injectable()
export class CrmLinksService implements OnModuleInit {
  private readonly logger = new Logger(CrmLinksService.name);
  private readonly linkers = new Map<CrmName, RecordLinker>();
  /** Where each linker was found, for the start-up error. */
  private readonly linkerSources = new Map<CrmName, string>();

  constructor(
    private readonly mappings: MappingRepository,
    private readonly discovery: DiscoveryService,
  ) {}

  onModuleInit(): void {
    for (const { mark, source, call } of decoratedMethods<{ crm: CrmName }, RecordLinker>(this.discovery, recordLinksOf)) {
      const other = this.linkerSources.get(mark.crm);
      if (other) throw new Error(`two record linkers of the ${mark.crm} CRM: ${other} and ${source}`);
      this.linkerSources.set(mark.crm, source);
      this.linkers.set(mark.crm, call);
    }
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
