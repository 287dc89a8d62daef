/**
 * What a valid delivery carried that the service's description does not: an enum value added since, a null where
 * a value was documented, an amount only exact as text. Such a delivery is taken (refusing it would lose it after
 * the service's retries); this lists the fields so they are logged and counted (crm_sync_webhook_tolerated_fields_total).
 */
export interface ToleratedField {
  field: string;
  kind: 'unknown_value' | 'null' | 'inexact_number';
}

const DOCUMENTED_VALUES: Record<string, Record<string, readonly unknown[]>> = {
  'project.updated': { source: ['app', 'web', 'open_api', null, undefined] },
  'proposal.status_changed': { status: ['DRAFT', 'PENDING', 'VOID', 'LOST', 'APPROVED', 'EXPIRED'] },
  'proposal.payment.received': { pay_channel: ['service_payment', 'mark_as_paid'] },
};
const NULLABLE_FIELDS: Record<string, readonly string[]> = {
  'drawing.created': ['pdf_url', 'png_url'],
  'drawing.updated': ['pdf_url', 'png_url'],
};
const AMOUNTS: Record<string, readonly string[]> = {
  'proposal.status_changed': ['total'],
  'proposal.payment.received': ['paid_amount'],
};

export function toleratedFields(event: string, data: Record<string, unknown>): ToleratedField[] {
  const found: ToleratedField[] = [];
  for (const [field, values] of Object.entries(DOCUMENTED_VALUES[event] ?? {})) {
    if (!values.includes(data[field])) found.push({ field, kind: 'unknown_value' });
  }
  for (const field of NULLABLE_FIELDS[event] ?? []) {
    if (data[field] === null) found.push({ field, kind: 'null' });
  }
  for (const field of AMOUNTS[event] ?? []) {
    if (typeof data[field] === 'string') found.push({ field, kind: 'inexact_number' });
  }
  return found;
}
