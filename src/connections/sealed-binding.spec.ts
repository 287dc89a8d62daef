import { randomBytes } from 'node:crypto';
import { connectionBinding, legacyConnectionBinding, oauthRequestBinding } from './sealed-binding.js';
import { SecretBox, SecretBoxError } from './secret-box.js';

describe('sealed values bound to their settings', () => {
  const box = new SecretBox(randomBytes(32));
  const plain = { accounts_url: 'https://accounts.zoho.eu', api_domain: 'https://www.zohoapis.eu', client_id: '1000.ABC' };
  const secrets = { client_secret: 'client-secret-0123456789', refresh_token: '1000.refresh' };

  it('opens with the same settings in any key order (jsonb reorders keys)', () => {
    const sealed = box.seal(secrets, connectionBinding('record_crm', plain));
    const reordered = { client_id: plain.client_id, api_domain: plain.api_domain, accounts_url: plain.accounts_url };
    expect(box.open(sealed, connectionBinding('record_crm', reordered))).toEqual(secrets);
  });

  it('does not open once a URL changed, in another row, or as an OAuth request', () => {
    const sealed = box.seal(secrets, connectionBinding('record_crm', plain));
    expect(() => box.open(sealed, connectionBinding('record_crm', { ...plain, accounts_url: 'https://evil.example' }))).toThrow(SecretBoxError);
    expect(() => box.open(sealed, connectionBinding('record_crm', { ...plain, api_domain: 'https://www.zohoapis.com' }))).toThrow(SecretBoxError);
    const service = box.seal({ token: 't' }, connectionBinding('service', { base_url: 'https://api.example.com/v1' }));
    expect(() => box.open(service, connectionBinding('service', { base_url: 'https://evil.example/v1' }))).toThrow(SecretBoxError);
    expect(() => box.open(service, connectionBinding('appointment_crm', { base_url: 'https://api.example.com/v1' }))).toThrow(SecretBoxError);
    expect(() => box.open(sealed, oauthRequestBinding('record_crm'))).toThrow(SecretBoxError);
  });

  it('binds an OAuth request to its own state, never to a connection', () => {
    const request = box.seal({ clientSecret: 's' }, oauthRequestBinding('a'.repeat(64)));
    expect(box.open(request, oauthRequestBinding('a'.repeat(64)))).toEqual({ clientSecret: 's' });
    expect(() => box.open(request, oauthRequestBinding('b'.repeat(64)))).toThrow(SecretBoxError);
    expect(() => box.open(request, connectionBinding('record_crm', {}))).toThrow(SecretBoxError);
    expect(() => box.open(request, legacyConnectionBinding('record_crm'))).toThrow(SecretBoxError);
  });

  it('opens a v1 seal (the name alone) only as a legacy seal, and a v2 seal never as one', () => {
    const current = box.seal(secrets, connectionBinding('record_crm', plain));
    const legacy = `v1.${current.split('.').slice(1).join('.')}`; // same bytes, the old label: must not open as v1
    expect(() => box.openLegacy(legacy, legacyConnectionBinding('record_crm'))).toThrow(SecretBoxError);
    const old = legacySeal(box, secrets, 'record_crm');
    expect(SecretBox.versionOf(old)).toBe('v1');
    expect(box.openLegacy(old, legacyConnectionBinding('record_crm'))).toEqual(secrets);
    expect(() => box.open(old, legacyConnectionBinding('record_crm'))).toThrow('not a sealed value of this version');
    expect(() => box.openLegacy(current, connectionBinding('record_crm', plain))).toThrow('not a sealed value of this version');
  });
});

/** What the box sealed before v2: the connection's name as associated data, labelled v1. */
function legacySeal(box: SecretBox, value: unknown, name: string): string {
  return `v1.${box.seal(value, name).split('.').slice(1).join('.')}`;
}
