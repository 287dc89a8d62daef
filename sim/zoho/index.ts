export { ZohoSim, ZOHO_MODULES, AUTHORIZATION_CODE_LIFETIME_MS, zohoError } from './zoho-sim.js';
export type { ZohoModule, ZohoSimOptions, ZohoAttachment, ZohoNote, ZohoOAuthClient, ZohoConsent } from './zoho-sim.js';
