import { Injectable } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
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
class RecordAttachments {
  @RunsAction('attach_pdf', { crm: 'record', queue: QUEUES.recordCrm })
  async attachPdf(_entry: ActionEntry<'attach_pdf'>): Promise<ActionOutcome> {
    return { status: 'succeeded' };
  }
}

@Injectable()
class AppointmentPushes {
  @RunsAction('push_drawings', { crm: 'appointment', queue: QUEUES.appointmentCrm })
  async pushDrawings(_entry: ActionEntry<'push_drawings'>): Promise<ActionOutcome> {
    return { status: 'succeeded' };
  }

  @RunsAction('push_proposal_pdf', { crm: 'appointment', queue: QUEUES.appointmentCrm })
  async pushProposalPdf(_entry: ActionEntry<'push_proposal_pdf'>): Promise<ActionOutcome> {
    return { status: 'succeeded' };
  }

  @RunsAction('push_line_items', { crm: 'appointment', queue: QUEUES.appointmentCrm })
  async pushLineItems(_entry: ActionEntry<'push_line_items'>): Promise<ActionOutcome> {
    return { status: 'succeeded' };
  }

  @RunsAction('set_status', { crm: 'appointment', queue: QUEUES.appointmentCrm })
  async setStatus(_entry: ActionEntry<'set_status'>): Promise<ActionOutcome> {
    return { status: 'succeeded' };
  }

  @RunsAction('add_note', { crm: 'appointment', queue: QUEUES.appointmentCrm })
  async addNote(_entry: ActionEntry<'add_note'>): Promise<ActionOutcome> {
    return { status: 'succeeded', detail: 'appointment note' };
  }
}

/** Every kind handled: what a daemon with all its modules has. */
const EVERY_HANDLER = [CoreActions, RecordNotes, RecordAttachments, AppointmentPushes];

@Injectable()
class RecordNotesAgain {
  @RunsAction('add_note', { crm: 'record', queue: QUEUES.recordCrm })
  async addNote(_entry: ActionEntry<'add_note'>): Promise<ActionOutcome> {
    return { status: 'succeeded' };
  }
}

async function registryWith(providers: Array<new (...args: never[]) => unknown>) {
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule],
    providers: [ActionRegistry, ...providers],
  }).compile();
  await moduleRef.init();
  return moduleRef.get(ActionRegistry);
}

describe(ActionRegistry.name, () => {
  it('finds every @RunsAction method and runs it with its entry', async () => {
    const registry = await registryWith(EVERY_HANDLER);
    const handler = registry.handlerFor('associate', null);
    expect(handler).toMatchObject({ kind: 'associate', queue: QUEUES.service, name: 'CoreActions.associate' });
    expect(await handler!.run({ payload: { mapping_ids: ['1', '2'] } } as never)).toEqual({ status: 'succeeded', detail: 'associated 1,2' });
    expect(registry.queueFor('reconcile', null)).toBe(QUEUES.service);
  });

  it('matches a CRM-specific handler on kind and CRM', async () => {
    const registry = await registryWith(EVERY_HANDLER);
    expect(registry.handlerFor('add_note', 'record')?.name).toBe('RecordNotes.addNote');
    expect(registry.handlerFor('add_note', 'appointment')?.name).toBe('AppointmentPushes.addNote');
    expect(registry.handlerFor('attach_pdf', 'appointment')).toBeUndefined();
  });

  it('refuses to start when a kind has no handler', async () => {
    await expect(registryWith([CoreActions, AppointmentPushes])).rejects.toThrow('no handler for action kind(s): add_note (record), attach_pdf (record)');
    await expect(registryWith([RecordNotes, RecordAttachments, AppointmentPushes])).rejects.toThrow(
      'no handler for action kind(s): associate, associate_project, reconcile',
    );
  });

  it('refuses two handlers of one kind and CRM', async () => {
    await expect(registryWith([...EVERY_HANDLER, RecordNotesAgain])).rejects.toThrow(
      'two handlers for action kind add_note (record): RecordNotes.addNote and RecordNotesAgain.addNote',
    );
  });
});
