import { isSmallOrg, parseLimitInfo } from './salesforce-api.js';

describe('isSmallOrg', () => {
  it('is a Developer Edition outside a sandbox, or any org with a trial expiry: 5 long requests at once', () => {
    expect(isSmallOrg({ OrganizationType: 'Developer Edition', IsSandbox: false, TrialExpirationDate: null })).toBe(true);
    expect(isSmallOrg({ OrganizationType: 'Enterprise Edition', IsSandbox: false, TrialExpirationDate: '2026-12-24T00:00:00.000+0000' })).toBe(true);
  });

  it('is not a production org, a sandbox, or an org it could not read: 25', () => {
    expect(isSmallOrg({ OrganizationType: 'Enterprise Edition', IsSandbox: false, TrialExpirationDate: null })).toBe(false);
    expect(isSmallOrg({ OrganizationType: 'Developer Edition', IsSandbox: true, TrialExpirationDate: null })).toBe(false);
    expect(isSmallOrg(undefined)).toBe(false);
  });
});

describe('parseLimitInfo', () => {
  it('reads api-usage from Sforce-Limit-Info, and nothing from another header', () => {
    expect(parseLimitInfo('api-usage=25/15000')).toEqual({ used: 25, max: 15000 });
    expect(parseLimitInfo('api-usage=25/5000; per-app-api-usage=17/250(appName=crm-sync)')).toEqual({ used: 25, max: 5000 });
    expect(parseLimitInfo('per-app-api-usage=2/250(appName=x)')).toBeNull();
    expect(parseLimitInfo(undefined)).toBeNull();
  });
});
