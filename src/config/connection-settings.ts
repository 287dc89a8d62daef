/** The four connections of a deployment, as the API names them. */
export const CONNECTION_NAMES = ['service', 'appointment_crm', 'record_crm', 'webhooks'] as const;
export type ConnectionName = (typeof CONNECTION_NAMES)[number];

export interface ServiceConnection {
  /** Ends in `/v1`, without a trailing slash. */
  baseUrl: string;
  token: string;
}

export interface AppointmentCrmConnection {
  baseUrl: string;
  apiKey: string;
}

/** Zoho CRM through OAuth: where to refresh (the account's accounts server), where to call, and the grant. */
export interface RecordCrmConnection {
  accountsUrl: string;
  apiDomain: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
}

/** Each webhook's secrets, newest first; several during a rotation. Empty: that webhook answers 404. */
export interface WebhookSecrets {
  events: string[];
  appointmentPrompt: string[];
  recordPrompt: string[];
}

export interface ConnectionSettings {
  service: ServiceConnection;
  appointment_crm: AppointmentCrmConnection;
  record_crm: RecordCrmConnection;
  webhooks: WebhookSecrets;
}

/** `appointment-crm` (a route's spelling) or `appointment_crm` to the name; null when it names no connection. */
export function connectionName(value: string): ConnectionName | null {
  const name = value.replace(/-/g, '_');
  return (CONNECTION_NAMES as readonly string[]).includes(name) ? (name as ConnectionName) : null;
}
