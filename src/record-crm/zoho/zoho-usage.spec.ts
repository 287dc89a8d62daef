import { zohoCallKind } from './zoho-usage.js';

describe('zohoCallKind', () => {
  it.each([
    ['GET /{module}', 'records_read'],
    ['GET /{module}?ids', 'records_read'],
    ['GET /{module}/{id}/Notes', 'records_read'],
    ['GET /{module}/search', 'search'],
    ['GET /Products/search', 'search'],
    ['POST /coql', 'coql'],
    ['POST /Quotes', 'write'],
    ['PUT /Deals/{id}', 'write'],
    ['POST /{module}/{id}/Attachments', 'write'],
    ['GET /settings/pipeline', 'metadata'],
    ['GET /org', 'org'],
    ['GET /users?type=CurrentUser', 'users'],
  ])('%s is %s', (endpoint, kind) => {
    expect(zohoCallKind(endpoint)).toBe(kind);
  });
});
