import { Injectable, Logger, SetMetadata, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { decoratedMethods } from '../discovery/decorated-methods.js';
import { ProjectsService } from '../projects/projects.service.js';
import type { Mapping, MappingCrm } from './mapping.row.js';
import { MappingRepository } from './mapping.repository.js';
import { CrmLinksService } from './crm-links.service.js';
import { mappingTarget, mappingView, type MappingView } from './mapping.view.js';

/** What a CRM says of a mapping's record: its name, and where it opens in the CRM when the CRM says (null: not said). */
export interface RecordNaming {
  name: string | null;
  webUrl: string | null;
}

/** Reads the name (and, for a CRM that gives one, the web address) of a mapping's CRM record from its CRM. */
export type RecordNameReader = (mapping: Mapping) => Promise<string | RecordNaming | null>;

const RECORD_NAMES = 'crm-sync:record-names';

interface RecordNamesMark {
  crm: MappingCrm;
  /** The CRM's records may carry a web address, read with the name. */
  givesUrls?: boolean;
}

/** What a method was marked with by `@RecordNames`, if it was. */
export function recordNamesOf(method: unknown): RecordNamesMark | undefined {
  return typeof method === 'function' ? (Reflect.getMetadata(RECORD_NAMES, method) as RecordNamesMark | undefined) : undefined;
}

/**
 * Marks a provider's method as the reader of `crm`'s record names (a CRM module's: mappings cannot import it).
 * MappingNamesService finds it among the providers at start; two readers of one CRM stop the start.
 */
export function RecordNames(crm: MappingCrm, options: { givesUrls?: boolean } = {}) {
  return <M extends RecordNameReader>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<M>): void => {
    SetMetadata(RECORD_NAMES, { crm, ...options })(target, key, descriptor);
  };
}

/** Records read from their CRM in the background per list shown; the rest wait for the next showing. */
const BACKGROUND_READS_PER_CALL = 10;
/** A record its CRM could not name (no name, gone, the CRM away) is not read again for this long (lists refresh every 10 s). */
const UNNAMED_FOR_MS = 15 * 60_000;
/** At most this many unnamed records are remembered (then the memory starts again). */
const UNNAMED_KEPT = 10_000;

/**
 * Mappings as screens show them: with their project's name and their CRM record's name. A record's name comes with
 * the mapping when a picker made it; otherwise it is read from its CRM the first time the mapping is shown (the CRM
 * modules say how with a `@RecordNames` method, as mappings cannot import them) and kept on the mapping.
 */
@Injectable()
export class MappingNamesService implements OnModuleInit {
  private readonly logger = new Logger(MappingNamesService.name);
  private readonly readers = new Map<MappingCrm, RecordNameReader>();
  /** Where each reader was found, for the start-up error. */
  private readonly readerSources = new Map<MappingCrm, string>();
  /** The CRMs whose records may carry a web address: a mapping without one is read (once in a while) for it too. */
  private readonly givesUrls = new Set<MappingCrm>();
  private readonly reading = new Set<string>();
  /** Mappings whose record could not be named, and when. */
  private readonly unnamed = new Map<string, number>();

  constructor(
    private readonly repository: MappingRepository,
    private readonly projects: ProjectsService,
    private readonly links: CrmLinksService,
    private readonly discovery: DiscoveryService,
  ) {}

  onModuleInit(): void {
    for (const { mark, source, call } of decoratedMethods<RecordNamesMark, RecordNameReader>(this.discovery, recordNamesOf)) {
      const other = this.readerSources.get(mark.crm);
      if (other) throw new Error(`two record name readers of the ${mark.crm} CRM: ${other} and ${source}`);
      this.readerSources.set(mark.crm, source);
      this.readers.set(mark.crm, call);
      if (mark.givesUrls) this.givesUrls.add(mark.crm);
    }
  }

  /** Lists and the project view: names not known yet are read in the background, for the next showing. */
  async views(mappings: Mapping[]): Promise<MappingView[]> {
    const [names, links] = await Promise.all([this.projects.names(mappings.map((m) => m.projectId)), this.links.linksOf(mappings.map(mappingTarget))]);
    this.readRecordNames(mappings.filter((m) => !m.crmRecordName || (this.givesUrls.has(m.crm) && !m.crmRecordUrl)));
    return mappings.map((m) => mappingView(m, names, links));
  }

  /** A write's answer: the names known now, no read started (a mapping is made to be used, not shown). */
  async answer(mapping: Mapping): Promise<MappingView> {
    return (await this.answers([mapping]))[0];
  }

  async answers(mappings: Mapping[]): Promise<MappingView[]> {
    const [names, links] = await Promise.all([
      this.projects.names(
        mappings.map((m) => m.projectId),
        false,
      ),
      this.links.linksOf(mappings.map(mappingTarget)),
    ]);
    return mappings.map((m) => mappingView(m, names, links));
  }

  private readRecordNames(mappings: Mapping[]): void {
    const now = Date.now();
    const wanted = mappings
      .filter((m) => !this.reading.has(m.id) && this.readers.has(m.crm) && !(now - (this.unnamed.get(m.id) ?? -Infinity) < UNNAMED_FOR_MS))
      .slice(0, BACKGROUND_READS_PER_CALL);
    for (const mapping of wanted) {
      this.reading.add(mapping.id);
      void this.readRecordName(mapping).finally(() => this.reading.delete(mapping.id));
    }
  }

  private async readRecordName(mapping: Mapping): Promise<void> {
    try {
      const read = await this.readers.get(mapping.crm)!(mapping);
      const { name, webUrl } = typeof read === 'string' || read === null ? { name: read, webUrl: null } : read;
      if (webUrl) await this.repository.setRecordUrl([mapping.id], webUrl);
      if (name && !mapping.crmRecordName) await this.repository.setRecordName([mapping.id], name);
      if (name && (webUrl || !this.givesUrls.has(mapping.crm))) return;
    } catch (err) {
      this.logger.warn(`mapping ${mapping.id}: its CRM record's name could not be read: ${(err as Error).message}`);
    }
    if (this.unnamed.size >= UNNAMED_KEPT) this.unnamed.clear();
    this.unnamed.set(mapping.id, Date.now());
  }
}
