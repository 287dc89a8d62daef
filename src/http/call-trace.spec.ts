import { CallTrace, currentCallTrace, MAX_CALLS_PER_RUN, pathTemplateOf, recordCall, redactText, templateSegment, withCallTrace } from './call-trace.js';

describe('pathTemplateOf', () => {
  it('prefers an explicit template, without its query string', () => {
    expect(pathTemplateOf({ system: 'service', method: 'GET', url: '/drawings/42/line_items?v=7', pathTemplate: '/drawings/:id/line_items?x=1' })).toBe(
      '/drawings/:id/line_items',
    );
  });

  it("reads the client's endpoint label (service, appointment CRM)", () => {
    expect(
      pathTemplateOf({ system: 'service', method: 'GET', url: '/drawings/36029621652695017/line_items', endpoint: 'D2 GET /drawings/:id/line_items' }),
    ).toBe('/drawings/:id/line_items');
    expect(pathTemplateOf({ system: 'appointment_crm', method: 'POST', url: '/appointments/apt-77/files', endpoint: 'POST /appointments/:id/files' })).toBe(
      '/appointments/:id/files',
    );
    expect(
      pathTemplateOf({ system: 'appointment_crm', method: 'DELETE', url: '/appointments/a%2Fb/files/f1', endpoint: 'DELETE /appointments/:id/files/:fileId' }),
    ).toBe('/appointments/:id/files/:fileId');
  });

  it("lays Zoho's label over the end of the absolute URL, keeping the API prefix", () => {
    expect(
      pathTemplateOf({
        system: 'zoho',
        method: 'GET',
        url: 'https://www.zohoapis.com/crm/v8/Deals/5725767000000411001/Attachments?fields=id&page=1',
        endpoint: 'GET /{module}/{id}/Attachments',
      }),
    ).toBe('/crm/v8/:module/:id/Attachments');
    expect(pathTemplateOf({ system: 'zoho', method: 'POST', url: 'https://www.zohoapis.eu/crm/v8/Notes', endpoint: 'POST /Notes' })).toBe('/crm/v8/Notes');
  });

  it('shows a PDF download by its host only', () => {
    const url = 'https://files.example.com/exports/123/proposal.pdf?X-Amz-Signature=abcdef&X-Amz-Credential=AKIA123';
    expect(pathTemplateOf({ system: 'download', method: 'GET', url, endpoint: 'PDF download' })).toBe('(pdf download) files.example.com');
  });

  it('falls back to replacing id-like segments when no label fits', () => {
    expect(pathTemplateOf({ system: 'service', method: 'GET', url: '/projects/36029621652695017/drawings?page=2' })).toBe('/projects/:id/drawings');
    expect(pathTemplateOf({ system: 'service', method: 'GET', url: '/files/3f2a9c0e1b7d4e6f8a9b0c1d2e3f4a5b/raw' })).toBe('/files/:id/raw');
    expect(pathTemplateOf({ system: 'zoho_accounts', method: 'POST', url: 'https://accounts.zoho.com/oauth/v2/token' })).toBe('/oauth/v2/token');
    // A label for another method or shape is not trusted.
    expect(pathTemplateOf({ system: 'service', method: 'POST', url: '/projects/9/archive', endpoint: 'GET /projects/:id' })).toBe('/projects/:id/archive');
  });

  it('keeps literals and replaces ids, tokens and encoded values', () => {
    expect(templateSegment('line_items')).toBe('line_items');
    expect(templateSegment('Attachments')).toBe('Attachments');
    expect(templateSegment('v1')).toBe('v1');
    expect(templateSegment('123')).toBe(':id');
    expect(templateSegment('apt-7')).toBe(':id');
    expect(templateSegment('k3j4h5g6f7d8s9a0')).toBe(':id');
    expect(templateSegment('deadbeefdeadbeefdeadbeef')).toBe(':id');
    expect(templateSegment('a%20b')).toBe(':id');
  });
});

describe('redactText', () => {
  it('drops query strings and credentials from a reason', () => {
    const text = redactText(
      'GET https://files.example.com/p.pdf?X-Amz-Signature=s3cr3t failed; Authorization: Bearer tok_live_123 refresh_token=1000.abc client_secret=xyz ' +
        'access_token 1000.0123456789abcdef0123.fedcba9876543210fedc {"access_token":"zzz"}',
    );
    expect(text).not.toMatch(/s3cr3t|tok_live_123|1000\.abc|xyz|0123456789abcdef|zzz/);
    expect(text).toContain('https://files.example.com/p.pdf?…');
  });

  it('keeps a reason short and on one line', () => {
    expect(redactText(`a\nb ${'x'.repeat(1000)}`)).toMatch(/^a b x+$/);
    expect(redactText('x'.repeat(1000))).toHaveLength(300);
  });
});

describe('call trace context', () => {
  it('collects calls made inside the run only, in order, capped', async () => {
    recordCall({ system: 'service', method: 'GET', url: '/projects/1' }, 200, 3, null, new Date());
    const trace = new CallTrace();
    await withCallTrace(trace, async () => {
      expect(currentCallTrace()).toBe(trace);
      await Promise.resolve();
      recordCall({ system: 'service', method: 'get', url: '/drawings/5?v=1', endpoint: 'D1 GET /drawings/:id' }, 503, 12.4, 'unavailable: busy', new Date());
      await new Promise((r) => setTimeout(r, 1));
      recordCall({ system: 'service', method: 'GET', url: '/drawings/5', endpoint: 'D1 GET /drawings/:id' }, 200, 8, null, new Date());
    });
    expect(currentCallTrace()).toBeUndefined();
    expect(trace.calls.map((c) => [c.seq, c.method, c.path, c.status, c.durationMs, c.error])).toEqual([
      [1, 'GET', '/drawings/:id', 503, 12, 'unavailable: busy'],
      [2, 'GET', '/drawings/:id', 200, 8, null],
    ]);

    const big = new CallTrace();
    await withCallTrace(big, async () => {
      for (let i = 0; i < MAX_CALLS_PER_RUN + 5; i++) recordCall({ system: 'service', method: 'GET', url: `/projects/${i}` }, 200, 1, null, new Date());
    });
    expect(big.calls).toHaveLength(MAX_CALLS_PER_RUN);
    expect(big.dropped).toBe(5);
  });
});
