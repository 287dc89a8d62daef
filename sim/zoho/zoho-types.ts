/**
 * The Zoho simulator's shapes and the answers every part of it gives: Zoho's error body, its times, the modules it
 * keeps (docs/zoho-crm.md).
 */
import type { SimResponse } from '../common/sim-server.js';

export const ZOHO_MODULES = ['Deals', 'Quotes', 'Leads', 'Contacts'] as const;
export type ZohoModule = (typeof ZOHO_MODULES)[number];

/** A client registered with the accounts server (in Zoho's API console), for the authorization-code flow. */
export interface ZohoOAuthClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  /** Shown on the consent page; the client id when absent. */
  name?: string;
  /**
   * A secret of its own in some data centres (by `location`), as Zoho's API console allows once a data centre is
   * turned on for the client without "use the same OAuth credentials for all data centers"; elsewhere `clientSecret`.
   */
  secrets?: Record<string, string>;
}

export interface ZohoSimOptions {
  /** The default client, which owns `refreshToken`. */
  clientId?: string;
  clientSecret?: string;
  refreshToken?: string;
  tokenLifetimeSeconds?: number;
  /** Further clients; one with the default client's id replaces it. */
  oauthClients?: ZohoOAuthClient[];
  /** `GET /oauth/v2/auth` skips the consent page and redirects with a code at once. */
  autoApprove?: boolean;
  /** The user's data centre, named by `location` in the redirect; `us` by default. Its accounts server is `accounts`. */
  dataCenter?: string;
  /** Other data centres (their `location`s), each with an accounts server of its own (`accountsOf`). */
  otherDataCenters?: string[];
}

/** A Zoho user: who signs in on the consent page, and whose CRM organization (if any) the tokens then reach. */
export interface ZohoUserAccount {
  userId: string;
  email: string;
  fullName: string;
  org: { id: string; name: string } | null;
}

/** A decision on the consent page (or by `autoApprove`). */
export interface ZohoConsent {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  approved: boolean;
}

export interface ZohoAttachment {
  id: string;
  fileName: string;
  size: number;
  contentType: string;
  bytes: Buffer;
  createdTime: string;
  /**
   * How the upload's body was framed: its Content-Length (null without one) and whether it came chunked. Zoho's SDK
   * sends multipart uploads with a Content-Length; null for attachments added by hand.
   */
  framing: { contentLength: number | null; chunked: boolean } | null;
}

export interface ZohoNote {
  id: string;
  title: string;
  content: string;
  createdTime: string;
}

/** A user as a record's Modified_By names them (crm-oas v8.0/users.json, `Minified_User`: name, id, email). */
export interface MinifiedUser {
  name: string;
  id: string;
  email: string;
}

/** Who edits by hand in tests, unless one is named: a sales rep of the org, not the user crm-sync's token acts for. */
export const REP: MinifiedUser = { name: 'Rita Rep', id: '4150868000000225013', email: 'rita.rep@example.com' };

export interface StoredRecord {
  id: string;
  fields: Record<string, unknown>;
  createdAt: number;
  modifiedAt: number;
  /** Who changed it last (crm-oas v8.0/record.json `Modified_By`); a record made by a test: REP. */
  modifiedBy?: MinifiedUser;
  attachments: ZohoAttachment[];
  notes: ZohoNote[];
}

export interface IssuedToken {
  /** The refresh token it came from; null for one from an online (no refresh token) authorization. */
  refreshToken: string | null;
  scopes: string[];
  account: ZohoUserAccount;
  expiresAt: number;
  expired: boolean;
}

/** Zoho's error body: `{code, details, message, status: "error"}`. */
export function zohoError(code: string, message: string, details: Record<string, unknown> = {}) {
  return { code, details, message, status: 'error' };
}

/** Zoho writes times as ISO 8601 with an offset and no milliseconds. */
export function zohoTime(at = Date.now()): string {
  return new Date(at).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

export function isModule(name: string): name is ZohoModule {
  return (ZOHO_MODULES as readonly string[]).includes(name);
}

export const invalidModule = (): SimResponse => ({
  status: 400,
  body: zohoError('INVALID_MODULE', 'the module name given seems to be invalid', { resource_path_index: 0 }),
});
export const invalidRecord = (): SimResponse => ({
  status: 400,
  body: zohoError('INVALID_DATA', 'the related id given seems to be invalid', { resource_path_index: 1 }),
});
