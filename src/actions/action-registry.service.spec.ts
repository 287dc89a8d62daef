import { Injectable, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { QUEUES } from '../queues/queues.js';
import type { ActionEntry, ActionOutcome } from './action.types.js';
import { ActionRegistryService } from './action-registry.service.js';
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

  @RunsAction('revenue_check', { queue: QUEUES.service })
  async revenueCheck(_entry: ActionEntry<'revenue_check'>): Promise<ActionOutcome> {
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

  @RunsAction('update_deal', { crm: 'record', queue: QUEUES.recordCrm })
  async updateDeal(_entry: ActionEntry<'update_deal'>): Promise<ActionOutcome> {
    return { status: 'succeeded' };
  }

  @RunsAction('push_quote', { crm: 'record', queue: QUEUES.recordCrm })
  async pushQuote(_entry: ActionEntry<'push_quote'>): Promise<ActionOutcome> {
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

  @RunsAction('check_service_push', { crm: 'appointment', queue: QUEUES.appointmentCrm })
  async checkServicePush(_entry: ActionEntry<'check_service_push'>): Promise<ActionOutcome> {
    return { status: 'succeeded' };
  }
}

@Injectable()
class AutomationActions {
  @RunsAction('create_project', { queue: QUEUES.service })
  async createProject(_entry: ActionEntry<'create_project'>): Promise<ActionOutcome> {
    return { status: 'succeeded' };
  }

  @RunsAction('associate_automated', { queue: QUEUES.service })
  async associate(_entry: ActionEntry<'associate_automated'>): Promise<ActionOutcome> {
    return { status: 'succeeded' };
  }

  @RunsAction('poll_changes', { crm: 'appointment', queue: QUEUES.appointmentCrm })
  async pollAppointments(_entry: ActionEntry<'poll_changes'>): Promise<ActionOutcome> {
    return { status: 'succeeded' };
  }

  @RunsAction('poll_changes', { crm: 'record', queue: QUEUES.recordCrm })
  async pollRecords(_entry: ActionEntry<'poll_changes'>): Promise<ActionOutcome> {
    return { status: 'succeeded' };
  }
}

@Injectable()
class SuggestionActions {
  @RunsAction('suggest_mapping', { crm: 'appointment', queue: QUEUES.appointmentCrm })
  async suggestAppointments(_entry: ActionEntry<'suggest_mapping'>): Promise<ActionOutcome> {
    return { status: 'succeeded' };
  }

  @RunsAction('suggest_mapping', { crm: 'record', queue: QUEUES.recordCrm })
  async suggestRecords(_entry: ActionEntry<'suggest_mapping'>): Promise<ActionOutcome> {
    return { status: 'succeeded' };
  }

  @RunsAction('auto_map', { queue: QUEUES.service })
  async autoMap(_entry: ActionEntry<'auto_map'>): Promise<ActionOutcome> {
    return { status: 'succeeded' };
  }
}

/** Every kind handled: what a daemon with all its modules has. */
const EVERY_HANDLER = [CoreActions, RecordNotes, RecordAttachments, AppointmentPushes, AutomationActions, SuggestionActions];

@Injectable()
class RecordNotesAgain {
  @RunsAction('add_note', { crm: 'record', queue: QUEUES.recordCrm })
  async addNote(_entry: ActionEntry<'add_note'>): Promise<ActionOutcome> {
    return { status: 'succeeded' };
  }
}

@Injectable()
class NoActions {
  async addNote(_entry: ActionEntry<'add_note'>): Promise<ActionOutcome> {
    return { status: 'succeeded' };
  }
}

/** A registry in an application of these providers (and these modules), started. */
async function registryWith(providers: Array<new (...args: never[]) => object>, imports: Array<new () => object> = []) {
  const moduleRef = await Test.createTestingModule({ imports: [DiscoveryModule, ...imports], providers: [ActionRegistryService, ...providers] }).compile();
  await moduleRef.init();
  return moduleRef.get(ActionRegistryService);
}

@Module({ providers: [AppointmentPushes, AutomationActions] })
class AppointmentFeature {}

describe(ActionRegistryService.name, () => {
  it('finds every @RunsAction method of the providers and runs it with its entry', async () => {
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
      'no handler for action kind(s): associate, associate_project, reconcile, revenue_check',
    );
  });

  it("finds the handlers of the application's other modules, and passes over providers that run no action", async () => {
    const registry = await registryWith([CoreActions, RecordNotes, RecordAttachments, SuggestionActions, NoActions], [AppointmentFeature]);
    expect(registry.handlerFor('push_drawings', 'appointment')?.name).toBe('AppointmentPushes.pushDrawings');
    expect(registry.handlerFor('add_note', 'record')?.name).toBe('RecordNotes.addNote');
  });

  it('refuses two handlers of one kind and CRM', async () => {
    await expect(registryWith([...EVERY_HANDLER, RecordNotesAgain])).rejects.toThrow(
      'two handlers for action kind add_note (record): RecordNotes.addNote and RecordNotesAgain.addNote',
    );
  });
});
