import { Injectable } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { ProjectsService } from '../projects/projects.service.js';
import { CrmLinksService, RecordLinks } from './crm-links.service.js';
import { MappingNamesService, RecordNames, type RecordNaming } from './mapping-names.service.js';
import { MappingRepository } from './mapping.repository.js';
import type { Mapping } from './mapping.row.js';

/** A CRM module's readers, as the appointment and record CRM modules declare theirs. */
@Injectable()
class RecordCrmReaders {
  readonly asked: string[][] = [];

  @RecordNames('record')
  async recordName(mapping: Mapping): Promise<string> {
    return `Deal ${mapping.recordCrmRecordId}`;
  }

  @RecordLinks('record')
  async recordLinks(targets: string[]): Promise<Map<string, string>> {
    this.asked.push(targets);
    return new Map(targets.map((t) => [t, `https://crm.example/tab/${t}`]));
  }
}

@Injectable()
class AnotherRecordNames {
  @RecordNames('record')
  async name(): Promise<RecordNaming> {
    return { name: null, webUrl: null };
  }
}

@Injectable()
class AnotherRecordLinks {
  @RecordLinks('record')
  async links(): Promise<Map<string, string>> {
    return new Map();
  }
}

/** The names MappingNamesService kept on mappings: `[ids, name]`. */
let named: Array<[string[], string]> = [];

const now = new Date();
const unnamedDeal: Mapping = {
  id: '5',
  crm: 'record',
  appointmentId: null,
  recordCrmModule: 'Deals',
  recordCrmRecordId: '41',
  projectId: '36029621652695017',
  status: 'associated',
  source: 'admin',
  crmRecordName: null,
  crmRecordUrl: null,
  error: null,
  claimedBy: null,
  createdAt: now,
  updatedAt: now,
};

async function moduleWith(providers: Array<new (...args: never[]) => object>) {
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule],
    providers: [
      MappingNamesService,
      CrmLinksService,
      // The stored addresses: none, so every link below is the linker's.
      {
        provide: MappingRepository,
        useValue: { recordUrlsOf: async () => new Map(), setRecordName: async (ids: string[], name: string) => named.push([ids, name]) },
      },
      { provide: ProjectsService, useValue: { names: async () => new Map() } },
      ...providers,
    ],
  }).compile();
  await moduleRef.init();
  return moduleRef;
}

describe('the CRM record readers found by scanning (@RecordNames, @RecordLinks)', () => {
  beforeEach(() => {
    named = [];
  });

  it("MappingNamesService reads an unnamed mapping's record name with the @RecordNames method of its CRM", async () => {
    const moduleRef = await moduleWith([RecordCrmReaders]);
    await moduleRef.get(MappingNamesService).views([unnamedDeal]);
    for (let i = 0; i < 100 && named.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(named).toEqual([[['5'], 'Deal 41']]);
  });

  it("CrmLinksService asks the @RecordLinks method of a CRM for that CRM's targets only", async () => {
    const moduleRef = await moduleWith([RecordCrmReaders]);
    const links = await moduleRef.get(CrmLinksService).linksOf([
      { crm: 'record', target: 'Deals/41' },
      { crm: 'appointment', target: '7' },
    ]);
    expect([...links]).toEqual([['record:Deals/41', 'https://crm.example/tab/Deals/41']]);
    expect(moduleRef.get(RecordCrmReaders).asked).toEqual([['Deals/41']]);
  });

  it('stops the start when two methods read the names of one CRM, naming both', async () => {
    await expect(moduleWith([RecordCrmReaders, AnotherRecordNames])).rejects.toThrow(
      'two record name readers of the record CRM: RecordCrmReaders.recordName and AnotherRecordNames.name',
    );
  });

  it('stops the start when two methods make the addresses of one CRM, naming both', async () => {
    await expect(moduleWith([RecordCrmReaders, AnotherRecordLinks])).rejects.toThrow(
      'two record linkers of the record CRM: RecordCrmReaders.recordLinks and AnotherRecordLinks.links',
    );
  });
});
