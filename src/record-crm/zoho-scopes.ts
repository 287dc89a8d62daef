/** What crm-sync asks Zoho for: the scopes of the pushes (attachments and notes of records), nothing more. */
export const ZOHO_SCOPES = 'ZohoCRM.modules.ALL,ZohoCRM.modules.attachments.ALL,ZohoCRM.modules.notes.ALL';
