/** Zoho's data centres: each account lives in one, with its own accounts server and API domain (docs/zoho-crm.md). */
export const ZOHO_DATA_CENTRES = [
  { code: 'US', accountsUrl: 'https://accounts.zoho.com', apiDomain: 'https://www.zohoapis.com' },
  { code: 'EU', accountsUrl: 'https://accounts.zoho.eu', apiDomain: 'https://www.zohoapis.eu' },
  { code: 'IN', accountsUrl: 'https://accounts.zoho.in', apiDomain: 'https://www.zohoapis.in' },
  { code: 'AU', accountsUrl: 'https://accounts.zoho.com.au', apiDomain: 'https://www.zohoapis.com.au' },
  { code: 'JP', accountsUrl: 'https://accounts.zoho.jp', apiDomain: 'https://www.zohoapis.jp' },
  { code: 'CA', accountsUrl: 'https://accounts.zohocloud.ca', apiDomain: 'https://www.zohoapis.ca' },
  { code: 'SA', accountsUrl: 'https://accounts.zoho.sa', apiDomain: 'https://www.zohoapis.sa' },
  { code: 'UK', accountsUrl: 'https://accounts.zoho.uk', apiDomain: 'https://www.zohoapis.uk' },
  { code: 'CN', accountsUrl: 'https://accounts.zoho.com.cn', apiDomain: 'https://www.zohoapis.com.cn' },
] as const;

/**
 * Where people open the CRM of the data centre whose API is at `apiDomain` (Zoho's web app, `crm.zoho.<tld>`); for an
 * API domain of none of Zoho's (a test double, allowed by RECORD_CRM_ALLOW_CUSTOM_DOMAINS), that domain itself.
 */
export function crmWebOriginOf(apiDomain: string): string {
  const origin = new URL(apiDomain).origin;
  return ZOHO_DATA_CENTRES.some((dc) => dc.apiDomain === origin)
    ? origin.replace('://www.zohoapis.', '://crm.zoho.').replace('crm.zoho.ca', 'crm.zohocloud.ca')
    : origin;
}

export const dataCentreOf = (accountsUrl: string): string | null => ZOHO_DATA_CENTRES.find((dc) => dc.accountsUrl === accountsUrl)?.code ?? null;

/**
 * Whether crm-sync may send a client secret to this accounts server: one of Zoho's, or the one the admin entered
 * (a test double or a proxy on their own network). The callback's `accounts-server` is only trusted through this.
 */
export function isTrustedAccountsServer(url: string, entered: string): boolean {
  return url === entered || ZOHO_DATA_CENTRES.some((dc) => dc.accountsUrl === url);
}
