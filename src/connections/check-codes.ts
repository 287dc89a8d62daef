import { OutboundError, type OutboundFailure } from '../http/outbound-error.js';

/**
 * Why a connection check failed, as a stable code beside its `detail` text (docs/operations.md "Codes"): the console
 * picks its words by it.
 */
export type CheckCode =
  | 'unauthorized'
  | 'not_found'
  | 'rate_limited'
  | 'upstream_error'
  | 'timeout'
  | 'network'
  | 'not_the_api'
  | 'rejected'
  | 'not_configured'
  | 'secrets_unreadable'
  | 'token_unavailable'
  | 'scope_missing'
  | 'no_crm_org'
  | 'no_events_secret'
  | 'schema_mismatch'
  | 'failed';

const BY_FAILURE: Record<OutboundFailure, CheckCode> = {
  unauthorized: 'unauthorized',
  not_found: 'not_found',
  rate_limited: 'rate_limited',
  unavailable: 'upstream_error',
  timeout: 'timeout',
  network: 'network',
  invalid_response: 'not_the_api',
  rejected: 'rejected',
  not_connected: 'not_configured',
};

/** The code of a failed check's error: from the typed outbound failure, `failed` for anything else. */
export function checkCodeOf(err: unknown): CheckCode {
  return err instanceof OutboundError ? BY_FAILURE[err.failure] : 'failed';
}
