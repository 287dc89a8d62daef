import { dataCentreOf, ZOHO_DATA_CENTRES } from './zoho-data-centres.js';

/**
 * The data centres as Zoho's Node SDK 8.0 names them (lib/utils/util/constants.js: US_DATACENTER … SA_DATACENTER, an
 * API domain and the accounts server's token URL each). UK is not in the SDK; Zoho's multi-DC OAuth pages list it.
 */
const SDK_DATA_CENTRES: Record<string, [apiDomain: string, tokenUrl: string]> = {
  US: ['https://www.zohoapis.com', 'https://accounts.zoho.com/oauth/v2/token'],
  JP: ['https://www.zohoapis.jp', 'https://accounts.zoho.jp/oauth/v2/token'],
  IN: ['https://www.zohoapis.in', 'https://accounts.zoho.in/oauth/v2/token'],
  EU: ['https://www.zohoapis.eu', 'https://accounts.zoho.eu/oauth/v2/token'],
  CN: ['https://www.zohoapis.com.cn', 'https://accounts.zoho.com.cn/oauth/v2/token'],
  AU: ['https://www.zohoapis.com.au', 'https://accounts.zoho.com.au/oauth/v2/token'],
  CA: ['https://www.zohoapis.ca', 'https://accounts.zohocloud.ca/oauth/v2/token'],
  SA: ['https://www.zohoapis.sa', 'https://accounts.zoho.sa/oauth/v2/token'],
};

describe('ZOHO_DATA_CENTRES', () => {
  it.each(Object.entries(SDK_DATA_CENTRES))('%s has the SDK’s API domain and accounts server', (code, [apiDomain, tokenUrl]) => {
    const dc = ZOHO_DATA_CENTRES.find((d) => d.code === code);
    expect(dc).toEqual({ code, apiDomain, accountsUrl: tokenUrl.replace('/oauth/v2/token', '') });
    expect(dataCentreOf(dc!.accountsUrl)).toBe(code);
  });

  it('holds the SDK’s eight and UK, nothing else', () => {
    expect(ZOHO_DATA_CENTRES.map((d) => d.code).sort()).toEqual([...Object.keys(SDK_DATA_CENTRES), 'UK'].sort());
    expect(ZOHO_DATA_CENTRES.find((d) => d.code === 'UK')).toEqual({
      code: 'UK',
      accountsUrl: 'https://accounts.zoho.uk',
      apiDomain: 'https://www.zohoapis.uk',
    });
  });
});
