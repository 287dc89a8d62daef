import { missingScopes, parseGrantedScopes, scopeHolds, scopesFor, ZOHO_SCOPE_LIST, ZOHO_SCOPES } from './zoho-scopes.js';

describe('Zoho scopes', () => {
  it('a scope holds the same one, a narrower path, and any operation when ALL', () => {
    expect(scopeHolds('ZohoCRM.modules.Deals.ALL', 'ZohoCRM.modules.Deals.READ')).toBe(true);
    expect(scopeHolds('ZohoCRM.modules.ALL', 'ZohoCRM.modules.attachments.ALL')).toBe(true);
    expect(scopeHolds('ZohoCRM.modules.READ', 'ZohoCRM.modules.Products.READ')).toBe(true);
    expect(scopeHolds('ZohoCRM.modules.Deals.READ', 'ZohoCRM.modules.Deals.ALL')).toBe(false);
    expect(scopeHolds('ZohoCRM.modules.Deals.ALL', 'ZohoCRM.modules.Quotes.READ')).toBe(false);
    expect(scopeHolds('ZohoCRM.modules.Deals.ALL', 'ZohoCRM.modules.ALL')).toBe(false);
    expect(scopeHolds('ZohoCRM.org.ALL', 'ZohoCRM.org.READ')).toBe(true);
  });

  it('names what a grant lacks: all of main’s scopes fall short of the stricter reading', () => {
    expect(missingScopes(ZOHO_SCOPES.split(','))).toEqual([]);
    const broad = ['ZohoCRM.modules.ALL', 'ZohoCRM.org.READ', 'ZohoCRM.users.ALL', 'ZohoCRM.settings.fields.READ'];
    // A grant made before revenue read pipelines and queried with COQL, and before the Automations screen listed the
    // Deals' layouts and the org's modules, and before the automation's notification channel: reconnecting grants these.
    const later = [
      'ZohoCRM.settings.pipeline.READ',
      'ZohoCRM.settings.layouts.READ',
      'ZohoCRM.settings.modules.READ',
      'ZohoCRM.coql.READ',
      'ZohoCRM.notifications.ALL',
    ];
    expect(missingScopes(broad)).toEqual(later);
    expect(missingScopes([...broad, ...later])).toEqual([]);
    expect(missingScopes([...broad, 'ZohoCRM.settings.ALL', 'ZohoCRM.coql.READ', 'ZohoCRM.notifications.ALL'])).toEqual([]);
    expect(missingScopes(['ZohoCRM.modules.attachments.CREATE', 'ZohoCRM.modules.Deals.READ'])).toEqual(ZOHO_SCOPE_LIST);
  });

  it('the scopes of a call, only its own module’s among the four', () => {
    expect(scopesFor('POST /{module}/{id}/Attachments', 'Deals')).toEqual(['ZohoCRM.modules.Deals.ALL', 'ZohoCRM.modules.attachments.ALL']);
    expect(scopesFor('GET /{module}?ids', 'Contacts')).toEqual(['ZohoCRM.modules.Contacts.ALL']);
    expect(scopesFor('GET /org', 'org')).toEqual(['ZohoCRM.org.READ']);
    expect(scopesFor('PUT /Deals/{id}')).toEqual(['ZohoCRM.modules.Deals.ALL']);
  });

  it('reads the scope of a token answer separated by spaces or commas', () => {
    expect(parseGrantedScopes('ZohoCRM.org.READ ZohoCRM.users.READ')).toEqual(['ZohoCRM.org.READ', 'ZohoCRM.users.READ']);
    expect(parseGrantedScopes('ZohoCRM.org.READ,ZohoCRM.users.READ')).toEqual(['ZohoCRM.org.READ', 'ZohoCRM.users.READ']);
    expect(parseGrantedScopes(undefined)).toBeNull();
  });
});
