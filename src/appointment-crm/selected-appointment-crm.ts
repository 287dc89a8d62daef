import { Injectable } from '@nestjs/common';
import { isSalesforce } from '../config/connection-settings.js';
import { ConnectionsService } from '../connections/connections.service.js';
import { HttpAppointmentCrm } from './adapters/rest/appointment-crm.client.js';
import type {
  AppointmentStatusOption,
  Appointment,
  AppointmentCrm,
  AppointmentDetails,
  AppointmentFile,
  AppointmentNote,
  AppointmentPage,
  AppointmentSearch,
  FileCategory,
  IdempotencyKey,
  Sale,
  LastChange,
  SaleAsHeld,
  SaleDeleted,
  UploadFile,
} from './appointment-crm.js';
import { SalesforceOrgsService } from './adapters/salesforce/salesforce-orgs.service.js';
import type { SalesforceAppointmentCrm } from './adapters/salesforce/salesforce-appointment-crm.js';

/** Who writes files, sales and Sold to the appointment CRM: crm-sync, or the service through its own integration. */
export type PushesBy = 'crm-sync' | 'service';

/**
 * The AppointmentCrm the flows use: the adapter of the connection in effect, asked anew on every call, so choosing
 * REST or Salesforce on the Connections screen (or APPOINTMENT_CRM_KIND) takes effect without a restart.
 */
@Injectable()
export class SelectedAppointmentCrm implements AppointmentCrm {
  constructor(
    private readonly connections: ConnectionsService,
    private readonly rest: HttpAppointmentCrm,
    private readonly salesforce: SalesforceOrgsService,
  ) {}

  /** The Salesforce adapter when the connection is a Salesforce org, else null. */
  async salesforceAdapter(): Promise<SalesforceAppointmentCrm | null> {
    const connection = await this.connections.get('appointment_crm');
    return isSalesforce(connection) ? this.salesforce.adapterFor(connection) : null;
  }

  /** `service` only for a Salesforce org set so (its default): the REST adapter's CRM is always pushed to by crm-sync. */
  async pushesBy(): Promise<PushesBy> {
    const connection = await this.connections.get('appointment_crm');
    return isSalesforce(connection) && connection.pushes === 'service' ? 'service' : 'crm-sync';
  }

  private async adapter(): Promise<AppointmentCrm> {
    return (await this.salesforceAdapter()) ?? this.rest;
  }

  async getAppointment(appointmentId: string): Promise<Appointment> {
    return (await this.adapter()).getAppointment(appointmentId);
  }
  async listFiles(appointmentId: string): Promise<AppointmentFile[]> {
    return (await this.adapter()).listFiles(appointmentId);
  }
  async listChangedAppointments(since: Date | null, cursor: string | null, limit: number): Promise<AppointmentPage> {
    return (await this.adapter()).listChangedAppointments(since, cursor, limit);
  }
  async searchAppointments(query: AppointmentSearch): Promise<AppointmentDetails[]> {
    return (await this.adapter()).searchAppointments(query);
  }
  async listNotes(appointmentId: string): Promise<AppointmentNote[] | null> {
    return (await this.adapter()).listNotes(appointmentId);
  }
  async uploadFile(appointmentId: string, category: FileCategory, file: UploadFile, key: IdempotencyKey): Promise<AppointmentFile> {
    return (await this.adapter()).uploadFile(appointmentId, category, file, key);
  }
  async deleteFile(appointmentId: string, fileId: string, key: IdempotencyKey): Promise<void> {
    return (await this.adapter()).deleteFile(appointmentId, fileId, key);
  }
  async putSale(appointmentId: string, sale: Sale, key: IdempotencyKey, stillLatest?: () => Promise<boolean>): Promise<void> {
    return (await this.adapter()).putSale(appointmentId, sale, key, stillLatest);
  }
  async setStatus(appointmentId: string, status: string, key: IdempotencyKey): Promise<void> {
    return (await this.adapter()).setStatus(appointmentId, status, key);
  }
  async addNote(appointmentId: string, text: string, key: IdempotencyKey): Promise<void> {
    return (await this.adapter()).addNote(appointmentId, text, key);
  }
  /** null when the connected adapter cannot list its statuses (the caller then offers the statuses seen). */
  async readSale(appointmentId: string): Promise<SaleAsHeld | SaleDeleted | null | undefined> {
    const adapter = await this.adapter();
    return adapter.readSale ? adapter.readSale(appointmentId) : undefined;
  }

  async fileRemoval(appointmentId: string, category: string): Promise<LastChange | null | undefined> {
    const adapter = await this.adapter();
    return adapter.fileRemoval ? adapter.fileRemoval(appointmentId, category) : undefined;
  }

  /** What Sold is in the CRM in use: the org's result value on Salesforce, `Sold` for the REST interface. */
  async soldStatus(): Promise<string> {
    const adapter = await this.adapter();
    return adapter.soldStatus ? adapter.soldStatus() : 'Sold';
  }

  /** Undefined when the adapter in use has no such listing (its appointment's stamp moves with the sale and files). */
  async appointmentsWithSaleOrFilesChangedSince(since: Date, mayCall: (calls: number) => boolean): Promise<string[] | null | undefined> {
    const adapter = await this.adapter();
    return adapter.appointmentsWithSaleOrFilesChangedSince ? adapter.appointmentsWithSaleOrFilesChangedSince(since, mayCall) : undefined;
  }

  async listStatuses(): Promise<AppointmentStatusOption[] | null> {
    const adapter = await this.adapter();
    return adapter.listStatuses ? adapter.listStatuses() : null;
  }
}
