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
  // Revenue: the Deal follows the proposal (update), line items become a Quote (create, update), products are
  // searched by Product_Code (read), and the Stage pick list's order is read from the fields' metadata.
  'ZohoCRM.modules.Deals.UPDATE',
  'ZohoCRM.modules.Quotes.CREATE',
  'ZohoCRM.modules.Quotes.UPDATE',
  'ZohoCRM.modules.Products.READ',
  'ZohoCRM.settings.fields.READ',
].join(',');
