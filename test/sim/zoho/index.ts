export { ZohoSim, ZOHO_MODULES, zohoError } from './zoho-sim.js';
export type { ZohoModule, ZohoSimOptions, ZohoAttachment, ZohoNote } from './zoho-sim.js';
