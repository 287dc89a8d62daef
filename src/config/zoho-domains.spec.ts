import { ZOHO_DATA_CENTRES } from './zoho-data-centres.js';
import { ZOHO_ONLY, zohoDomainProblem, type ZohoDomainRule } from './zoho-domains.js';

describe('Zoho domains', () => {
  it("accepts every data centre's accounts server and API domain over https, with or without a trailing slash", () => {
    const expected = ['com', 'eu', 'in', 'com.au', 'jp', 'sa', 'uk', 'com.cn'];
    for (const tld of expected) {
      expect(zohoDomainProblem('accounts_url', `https://accounts.zoho.${tld}`, ZOHO_ONLY)).toBeNull();
      expect(zohoDomainProblem('api_domain', `https://www.zohoapis.${tld}/`, ZOHO_ONLY)).toBeNull();
    }
    expect(zohoDomainProblem('accounts_url', 'https://accounts.zohocloud.ca', ZOHO_ONLY)).toBeNull();
    expect(zohoDomainProblem('api_domain', 'https://www.zohoapis.ca', ZOHO_ONLY)).toBeNull();
    expect(ZOHO_DATA_CENTRES.map((dc) => dc.code)).toEqual(['US', 'EU', 'IN', 'AU', 'JP', 'CA', 'SA', 'UK', 'CN']);
  });

  it('refuses other hosts, http, look-alikes, credentials, paths and queries, naming the field', () => {
    const refused = [
      'https://accounts.zoho.com.evil.example',
      'https://evil.example',
      'http://accounts.zoho.com',
      'https://accounts.zoho.com:8443',
      'https://user:pass@accounts.zoho.com',
      'https://accounts.zoho.com/oauth',
      'https://accounts.zoho.com?x=1',
      'https://www.zohoapis.com', // an API domain is no accounts server
      'not a url',
    ];
    for (const url of refused) expect(zohoDomainProblem('accounts_url', url, ZOHO_ONLY)).toMatch(/^accounts_url must be one of Zoho's data centres over https/);
    expect(zohoDomainProblem('api_domain', 'https://accounts.zoho.eu', ZOHO_ONLY)).toMatch(/^api_domain must be/);
    expect(zohoDomainProblem('api_domain', 'https://zohoapis.eu.attacker.example', ZOHO_ONLY)).toMatch(/^api_domain must be/);
  });

  it('accepts the addresses the environment sets, and anything when custom domains are allowed', () => {
    const fromEnvironment: ZohoDomainRule = { allowCustom: false, accountsUrl: 'http://127.0.0.1:9001', apiDomain: 'http://127.0.0.1:9002' };
    expect(zohoDomainProblem('accounts_url', 'http://127.0.0.1:9001/', fromEnvironment)).toBeNull();
    expect(zohoDomainProblem('api_domain', 'http://127.0.0.1:9002', fromEnvironment)).toBeNull();
    expect(zohoDomainProblem('accounts_url', 'http://127.0.0.1:9002', fromEnvironment)).not.toBeNull();
    expect(zohoDomainProblem('api_domain', 'http://127.0.0.1:9001', fromEnvironment)).not.toBeNull();
    const custom: ZohoDomainRule = { allowCustom: true, accountsUrl: null, apiDomain: null };
    expect(zohoDomainProblem('accounts_url', 'http://127.0.0.1:9001', custom)).toBeNull();
    expect(zohoDomainProblem('api_domain', 'http://proxy.internal', custom)).toBeNull();
  });
});
