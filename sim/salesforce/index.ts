export { SalesforceSim } from './salesforce-sim.js';
export type { SalesforceSimOptions, SfFile } from './salesforce-sim.js';
export { SfSchema, improveit360Objects, standardObjects, field, RESULT_VALUES } from './schema.js';
export type { SfObject, SfField, SfFieldType, SfValidationRule, I360Namespace } from './schema.js';
export { AUTHORIZATION_CODE_LIFETIME_MS, DEFAULT_SCOPES } from './oauth.js';
export type { ConnectedApp, SfConsent } from './oauth.js';
export { to18, checksumOf } from './ids.js';
export { parseSoql, SoqlError } from './soql.js';
