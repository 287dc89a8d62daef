import { CALLBACK_PATH } from './zoho-connect.service.js';

export const OAUTH_BINDING_COOKIE = 'crm_sync_oauth';

/**
 * The cookie that binds a Zoho consent to the browser that started it. SameSite=Lax, unlike the session's Strict:
 * the callback is a top-level navigation from Zoho's site, on which a Strict cookie is not sent. Sent only to the
 * callback, and only for as long as the state lives.
 */
export function oauthBindingCookie(value: string | null, secure: boolean, maxAgeSeconds = 600, path = CALLBACK_PATH): string {
  const attributes = [`${OAUTH_BINDING_COOKIE}=${value ?? ''}`, 'HttpOnly', 'SameSite=Lax', `Path=${path}`, `Max-Age=${value === null ? 0 : maxAgeSeconds}`];
  if (secure) attributes.push('Secure');
  return attributes.join('; ');
}
