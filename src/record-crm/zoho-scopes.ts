/**
 * What crm-sync asks Zoho for: only the scopes of the calls it makes, as Zoho's v8 OpenAPI files list them. Listing
 * and uploading a record's attachments need attachments READ and CREATE; a record's notes are listed through its
 * module (module READ with notes READ) and added with `POST /Notes` (notes CREATE).
 */
export const ZOHO_SCOPES = [
  'ZohoCRM.modules.attachments.READ',
  'ZohoCRM.modules.attachments.CREATE',
  'ZohoCRM.modules.notes.READ',
  'ZohoCRM.modules.notes.CREATE',
  'ZohoCRM.modules.Deals.READ',
  'ZohoCRM.modules.Quotes.READ',
  'ZohoCRM.modules.Leads.READ',
  'ZohoCRM.modules.Contacts.READ',
].join(',');
