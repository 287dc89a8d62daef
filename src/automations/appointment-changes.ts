import type { AppointmentDetails } from '../appointment-crm/appointment-crm.js';
import type { AppointmentCrmAutomation } from '../crm-settings/automation-settings.js';
import type { CreateProjectPayload } from '../domain/actions.js';
import type { Address, Customer, SalesRep } from '../service-api/service-api.types.js';
import { present } from './present.js';
import { projectName } from './project-name.js';

/** Whether an appointment's status is one the settings name (any status when they name none); case and spaces aside. */
export function appointmentQualifies(appointment: AppointmentDetails, settings: AppointmentCrmAutomation): boolean {
  if (settings.statuses.length === 0) return true;
  const status = appointment.status.trim().toLowerCase();
  return settings.statuses.some((s) => s.trim().toLowerCase() === status);
}

/** The project an appointment gets: named after its customer and id, with what the appointment says of them. */
export function projectOfAppointment(appointment: AppointmentDetails): CreateProjectPayload {
  const customer = appointment.customer;
  const a = customer?.address;
  // The service's Address has no country.
  const address = a ? present<Address>({ street: a.street, city: a.city, state: a.state, zip_code: a.zip_code }) : undefined;
  const customerFields = customer ? present<Customer>({ name: customer.name, email: customer.email, phone: customer.phone, address }) : undefined;
  const salesRep = appointment.sales_rep ? present<SalesRep>(appointment.sales_rep) : undefined;
  return present<CreateProjectPayload>({
    record: { crm: 'appointment', id: appointment.id },
    name: projectName(customer?.name, appointment.id, 'Appointment'),
    customer: customerFields,
    work_site_address: address,
    sales_rep: salesRep,
    job_number: appointment.job_number ?? undefined,
  });
}
