import { BadGatewayException, BadRequestException, ConflictException, Inject, Injectable } from '@nestjs/common';
import { APPOINTMENT_CRM, type AppointmentCrm, type AppointmentDetails } from '../appointment-crm/appointment-crm.js';
import { OutboundError } from '../http/outbound-error.js';
import { ProjectsService } from '../projects/projects.service.js';
import { RECORD_CRM, recordNameOf, type RecordCrm, type ZohoRecord } from '../record-crm/record-crm.js';
import type { RecordModule } from '../service-api/service-api.types.js';
import { ZohoRevenueClient } from '../record-crm/zoho/zoho-revenue.client.js';
import type { CrmRecordHitView, ProjectHitView, SearchModuleName } from './search.dto.js';

/** A picker shows this many; a search answers no more. */
const PICKER_ITEMS = 20;
/** The fields of a Zoho record, besides its name, that tell it apart in a picker, by preference. */
const RECORD_DETAIL_FIELDS = ['Email', 'Phone', 'Mobile', 'Stage', 'Account_Name', 'Contact_Name', 'Closing_Date'];

/** The pickers of "Add a mapping": projects by name (P5), CRM records by their CRM's own search. */
@Injectable()
export class SearchService {
  constructor(
    private readonly projects: ProjectsService,
    @Inject(APPOINTMENT_CRM) private readonly appointments: AppointmentCrm,
    @Inject(RECORD_CRM) private readonly records: RecordCrm,
    private readonly revenue: ZohoRevenueClient,
  ) {}

  async projectsNamed(namePart: string): Promise<ProjectHitView[]> {
    const found = await answered(() => this.projects.search(namePart));
    return found.map((p) => ({ id: p.projectId, name: p.name, customer_name: p.customer.name, created_at: p.createdAt }));
  }

  async crmRecords(crm: 'appointment' | 'record', module: SearchModuleName | undefined, words: string): Promise<CrmRecordHitView[]> {
    if (crm === 'appointment') {
      const found = await answered(() => this.appointments.searchAppointments({ q: words }));
      return found.slice(0, PICKER_ITEMS).map(appointmentHit);
    }
    if (!module) throw new BadRequestException({ statusCode: 400, message: 'module is required when crm is record', error: 'Bad Request' });
    if (module === 'Products') {
      const products = await answered(() => this.revenue.searchProducts(words));
      return products.slice(0, PICKER_ITEMS).map(productHit);
    }
    const found = await answered(() => this.records.searchRecords(module, { word: words }));
    return found.map((r) => recordHit(module, r));
  }
}

function appointmentHit(a: AppointmentDetails): CrmRecordHitView {
  const detail = [a.job_number && `job ${a.job_number}`, a.customer?.email, a.customer?.phone, a.scheduled_at?.slice(0, 10), a.status].filter(Boolean);
  return { id: a.id, module: null, name: a.customer?.name ?? null, detail: detail.length > 0 ? detail.join(' · ') : null };
}

function recordHit(module: RecordModule, record: ZohoRecord): CrmRecordHitView {
  const detail = RECORD_DETAIL_FIELDS.map((f) => record[f])
    .map((v) => (v && typeof v === 'object' && 'name' in v ? (v as { name: unknown }).name : v))
    .filter((v): v is string => typeof v === 'string' && v !== '')
    .slice(0, 3);
  return { id: record.id, module, name: recordNameOf(record), detail: detail.length > 0 ? detail.join(' · ') : null };
}

function productHit(product: Record<string, unknown> & { id: string }): CrmRecordHitView {
  const name = typeof product.Product_Name === 'string' ? product.Product_Name : null;
  const code = typeof product.Product_Code === 'string' && product.Product_Code !== '' ? `code ${product.Product_Code}` : null;
  return { id: product.id, module: 'Products', name, detail: code };
}

/** A search the other system could not answer: 409 when it is not connected, else 502 with its reason. */
export async function answered<T>(search: () => Promise<T>): Promise<T> {
  try {
    return await search();
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    if (err.failure === 'not_connected') throw new ConflictException({ statusCode: 409, message: err.message, error: 'Conflict', code: 'not_connected' });
    throw new BadGatewayException({ statusCode: 502, message: err.message, error: 'Bad Gateway', code: err.failure });
  }
}
