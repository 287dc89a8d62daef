import { salesforceHostProblem } from './salesforce-hosts.js';

describe('salesforceHostProblem: the hosts that may receive an org secrets and tokens', () => {
  it('takes the login and test hosts and My Domains, as a bare https origin', () => {
    for (const url of [
      'https://login.salesforce.com',
      'https://test.salesforce.com',
      'https://acme.my.salesforce.com',
      'https://ACME.my.salesforce.com/',
      'https://acme--uat.sandbox.my.salesforce.com',
      'https://acme-dev-ed.develop.my.salesforce.com',
      'https://acme.my.salesforce.mil',
    ]) {
      expect([url, salesforceHostProblem('instance_url', url, false)]).toEqual([url, null]);
    }
  });

  it('refuses any other *.salesforce.com or *.force.com host, and a path, query, port or user info', () => {
    for (const url of [
      'https://evil.force.com',
      'https://attacker.lightning.force.com',
      'https://na1.salesforce.com',
      'https://my.salesforce.com',
      'https://acme.my.salesforce.com.evil.example',
      'https://login.salesforce.com/services/oauth2',
      'https://login.salesforce.com/?next=https://evil.example',
      'https://login.salesforce.com#x',
      'https://login.salesforce.com:8443',
      'https://user:secret@login.salesforce.com',
      'http://login.salesforce.com',
      'not a url',
    ]) {
      expect([url, salesforceHostProblem('login_url', url, false)]).toEqual([url, expect.stringContaining('login_url')]);
    }
  });

  it('takes any http(s) URL while APPOINTMENT_CRM_ALLOW_CUSTOM_DOMAINS is on (a simulator, a proxy)', () => {
    expect(salesforceHostProblem('instance_url', 'http://127.0.0.1:4000', true)).toBeNull();
    expect(salesforceHostProblem('instance_url', 'ftp://127.0.0.1', true)).toContain('instance_url');
  });
});
