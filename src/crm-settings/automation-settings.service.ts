import { Injectable } from '@nestjs/common';
import { AutomationSettingRepository } from './automation-setting.repository.js';
import {
  storedSettings,
  type AppointmentCrmAutomation,
  type AutomationCrm,
  type AutomationSettingsByCrm,
  type RecordCrmAutomation,
} from './automation-settings.js';

/**
 * How long a replica trusts what it read. A save on another replica is effective here within this (promised: 10 s);
 * a save on this replica at once.
 */
export const SETTINGS_CACHE_MS = 5_000;

export interface AutomationSettingsRecord<K extends AutomationCrm> {
  settings: AutomationSettingsByCrm[K];
  updatedAt: Date | null;
  updatedBy: string | null;
}

/** The automations' settings per CRM, stored in Postgres and read through a short per-replica cache. */
@Injectable()
export class AutomationSettingsService {
  private readonly cache = new Map<AutomationCrm, { readAt: number; record: Promise<AutomationSettingsRecord<AutomationCrm>> }>();

  constructor(private readonly repository: AutomationSettingRepository) {}

  async appointmentCrm(): Promise<AppointmentCrmAutomation> {
    return (await this.record('appointment')).settings;
  }

  async recordCrm(): Promise<RecordCrmAutomation> {
    return (await this.record('record')).settings;
  }

  /** The settings with who saved them and when (null: never saved, the defaults). */
  record<K extends AutomationCrm>(crm: K): Promise<AutomationSettingsRecord<K>> {
    const cached = this.cache.get(crm);
    if (cached && Date.now() - cached.readAt < SETTINGS_CACHE_MS) return cached.record as Promise<AutomationSettingsRecord<K>>;
    const record = this.read(crm);
    this.cache.set(crm, { readAt: Date.now(), record });
    // A failed read is not kept: the next call asks the database again.
    record.catch(() => this.cache.delete(crm));
    return record;
  }

  /** Stores settings already validated (validateAppointmentCrmAutomation / validateRecordCrmAutomation). */
  async save<K extends AutomationCrm>(crm: K, settings: AutomationSettingsByCrm[K], actor: string | null): Promise<AutomationSettingsRecord<K>> {
    const row = await this.repository.save(crm, settings, actor);
    const record: AutomationSettingsRecord<K> = { settings: storedSettings(crm, row.settings), updatedAt: row.updatedAt, updatedBy: row.updatedBy };
    this.cache.set(crm, { readAt: Date.now(), record: Promise.resolve(record) });
    return record;
  }

  private async read<K extends AutomationCrm>(crm: K): Promise<AutomationSettingsRecord<K>> {
    const row = await this.repository.find(crm);
    return { settings: storedSettings(crm, row?.settings), updatedAt: row?.updatedAt ?? null, updatedBy: row?.updatedBy ?? null };
  }
}
