/** The four connections of a deployment, as the API names them. */
export const CONNECTION_NAMES = ['service', 'appointment_crm', 'record_crm', 'webhooks'] as const;
export type ConnectionName = (typeof CONNECTION_NAMES)[number];

export interface ServiceConnection {
  /** Ends in `/v1`, without a trailing slash. */
  baseUrl: string;
  token: string;
}

/** The appointment CRM: the REST interface of docs/appointment-crm.md, or a Salesforce org (docs/appointment-crm-salesforce.md). */
export type AppointmentCrmConnection = RestAppointmentCrmConnection | SalesforceAppointmentCrmConnection;

export interface RestAppointmentCrmConnection {
  kind?: 'rest';
  baseUrl: string;
  apiKey: string;
}

/** A Salesforce org through OAuth (a Connected App's id and secret, the refresh token of a consent) and its names. */
export interface SalesforceAppointmentCrmConnection {
  kind: 'salesforce';
  /** Where tokens are asked for: login.salesforce.com, test.salesforce.com (sandboxes) or the org's My Domain. */
  loginUrl: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  /** The instance the consent's token answer named (each refresh names it again; this is for the console). */
  instanceUrl: string | null;
  /** `improveit360-classic` or `improveit360-lightning`: the default names of every need. */
  preset: string;
  /** Names of needs that differ from the preset's (`''`: an optional need left unused). */
  names: Record<string, string>;
  /** The result pick list's value that means Sold. */
  soldValue: string;
  /** `service`: the service pushes to the org itself and crm-sync checks; `crm-sync`: crm-sync pushes. */
  pushes: 'service' | 'crm-sync';
}

export const isSalesforce = (connection: AppointmentCrmConnection | null | undefined): connection is SalesforceAppointmentCrmConnection =>
  connection?.kind === 'salesforce';

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
