import { Injectable } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { QUEUES } from '../queues/queues.js';
import type { ActionEntry, ActionOutcome } from './action.types.js';
import { ActionRegistry } from './action-registry.service.js';
import { RunsAction } from './runs-action.decorator.js';

@Injectable()
class CoreActions {
  @RunsAction('associate', { queue: QUEUES.service })
  async associate(entry: ActionEntry<'associate'>): Promise<ActionOutcome> {
    return { status: 'succeeded', detail: `associated ${entry.payload.mapping_ids.join(',')}` };
  }

  @RunsAction('associate_project', { queue: QUEUES.service })
  async associateProject(_entry: ActionEntry<'associate_project'>): Promise<ActionOutcome> {
    return { status: 'skipped' };
  }

  @RunsAction('reconcile', { queue: QUEUES.service })
  async reconcile(_entry: ActionEntry<'reconcile'>): Promise<ActionOutcome> {
    return { status: 'skipped' };
  }
}

@Injectable()
class RecordNotes {
  @RunsAction('add_note', { crm: 'record', queue: QUEUES.recordCrm })
  async addNote(_entry: ActionEntry<'add_note'>): Promise<ActionOutcome> {
    return { status: 'succeeded', detail: 'record note' };
  }
}

@Injectable()
class RecordNotesAgain {
  @RunsAction('add_note', { crm: 'record', queue: QUEUES.recordCrm })
  async addNote(_entry: ActionEntry<'add_note'>): Promise<ActionOutcome> {
    return { status: 'succeeded' };
  }
}

const config = (crms: { appointment?: boolean; record?: boolean }) =>
  ({ appointmentCrm: crms.appointment ? {} : null, recordCrm: crms.record ? {} : null }) as unknown as AppConfig;

async function registryWith(providers: Array<new (...args: never[]) => unknown>, crms: { appointment?: boolean; record?: boolean } = {}) {
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule],
    providers: [ActionRegistry, { provide: APP_CONFIG, useValue: config(crms) }, ...providers],
  }).compile();
  await moduleRef.init();
  return moduleRef.get(ActionRegistry);
}

describe(ActionRegistry.name, () => {
  it('finds every @RunsAction method and runs it with its entry', async () => {
    const registry = await registryWith([CoreActions]);
    const handler = registry.handlerFor('associate', null);
    expect(handler).toMatchObject({ kind: 'associate', queue: QUEUES.service, name: 'CoreActions.associate' });
    expect(await handler!.run({ payload: { mapping_ids: ['1', '2'] } } as never)).toEqual({ status: 'succeeded', detail: 'associated 1,2' });
    expect(registry.queueFor('reconcile', null)).toBe(QUEUES.service);
  });

  it('matches a CRM-specific handler on kind and CRM', async () => {
    const registry = await registryWith([CoreActions, RecordNotes]);
    expect(registry.handlerFor('add_note', 'record')?.name).toBe('RecordNotes.addNote');
    expect(registry.handlerFor('add_note', 'appointment')).toBeUndefined();
  });

  it('refuses to start when a kind an enabled CRM must run has no handler', async () => {
    await expect(registryWith([CoreActions], { record: true })).rejects.toThrow('no handler for action kind(s): add_note (record), attach_pdf (record)');
    await expect(registryWith([RecordNotes])).rejects.toThrow('no handler for action kind(s): associate, associate_project, reconcile');
  });

  it('refuses two handlers of one kind and CRM', async () => {
    await expect(registryWith([CoreActions, RecordNotes, RecordNotesAgain])).rejects.toThrow(
      'two handlers for action kind add_note (record): RecordNotes.addNote and RecordNotesAgain.addNote',
    );
  });
});
