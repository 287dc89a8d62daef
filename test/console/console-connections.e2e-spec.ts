import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { AppointmentCrmSim } from '../../sim/appointment-crm/appointment-crm-sim.js';
import { events, recordPrompt, WebhookSender } from '../../sim/service/index.js';
import { ZohoSim } from '../../sim/zoho/index.js';
import { browserTestOf, haveChromium, launchChromium, openConsolePage } from '../support/browser.js';
import { ADMIN_TOKEN, startHarness, waitFor, type Harness } from '../support/harness.js';
import { mapRecord } from '../support/zoho-records.js';
import { syncLogEntry } from '../support/tables.js';

type Json = any;

/*
 * The Connections screen in a browser: the service and the appointment CRM set from their forms (a refused test saves
 * nothing), the webhooks' secrets (a delivery signed with the one set here is accepted at the address shown), Zoho
 * connected through its consent page, and a daemon started with another CONNECTIONS_KEY saying it cannot read them.
 * Redis db 12 (shared with record-crm.e2e-spec.ts; each harness has a queue prefix of its own). The harness starts
 * without the environment's service and webhooks (blank counts as unset), so the console sets them. Each step leaves
 * a screenshot in /tmp (console-connections-*.png).
 */
const VIEWER_TOKEN = 'viewer-token-0123456789abcdef';
const OPERATOR_TOKEN = 'operator-token-0123456789abcdef';
const browserIt = browserTestOf('console-connections.e2e-spec');

/** No connection from the environment but the key: the console sets them. */
const WITHOUT_CONNECTIONS = {
  SERVICE_API_BASE_URL: '',
  SERVICE_API_TOKEN: '',
  WEBHOOK_SECRETS_EVENTS: '',
  WEBHOOK_SECRETS_APPOINTMENT_PROMPT: '',
  WEBHOOK_SECRETS_RECORD_PROMPT: '',
};

const EVENTS_SECRET = 'console-events-secret-0001';
const ZOHO_CLIENT = { clientId: '1000.CRMSYNCCONSOLE', clientSecret: 'crm-sync-console-client-secret', name: 'crm-sync (console test)' };
const ROTATED_SECRET = 'console-events-secret-0002';

describe('the Connections screen in a browser', () => {
  let h: Harness;
  let appointments: AppointmentCrmSim;
  let zoho: ZohoSim;
  let browser: Browser;
  /** The record prompt's secret, generated on the page by the webhooks test. */
  let recordPromptSecret = '';
  const sender = new WebhookSender();

  beforeAll(async () => {
    appointments = new AppointmentCrmSim();
    await appointments.start();
    // A client registered in "Zoho's API console"; its redirect URI is added once the daemon's address is known.
    zoho = new ZohoSim({ oauthClients: [{ ...ZOHO_CLIENT, redirectUris: [] }] });
    await zoho.start();
    h = await startHarness({
      redisDb: 12,
      env: { ...WITHOUT_CONNECTIONS, ADMIN_TOKENS: `viewer1:viewer:${VIEWER_TOKEN},operator1:operator:${OPERATOR_TOKEN}` },
    });
    if (haveChromium) browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await appointments?.stop();
    await zoho?.stop();
  });

  const openConsole = (url = h.url, token = ADMIN_TOKEN) =>
    openConsolePage(browser, { url, token, hash: '/#connections', ready: '#connections-cards', refusedStatuses: [400, 401, 403, 404, 409, 422] });

  async function shot(page: Page, name: string) {
    // From the top, so the sticky header is where it belongs in the full-page image.
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: `/tmp/console-connections-${name}.png`, fullPage: true });
  }
  const connections = async (harness = h): Promise<Json> => (await harness.admin('/api/connections')).json();
  const itemOf = async (name: string, harness = h): Promise<Json> => ((await connections(harness)).items as Json[]).find((i) => i.name === name);
  const badgeOf = (page: Page, path: string) => page.locator(`#conn-${path}-status`);

  browserIt(
    'nothing set: each card says so, the webhooks warn that PUBLIC_URL is unset; a viewer sees no form, an operator only Test',
    async () => {
      const { context, page, errors } = await openConsole();
      expect(await page.locator('#tab-connections').getAttribute('aria-current')).toBe('page');
      for (const path of ['service', 'appointment-crm', 'record-crm', 'webhooks'])
        expect([path, await badgeOf(page, path).textContent()]).toEqual([path, 'not configured']);
      expect(await page.locator('#conn-webhooks-public-url').textContent()).toContain('PUBLIC_URL is not set');
      expect(await page.locator('#conn-service-form').isVisible()).toBe(true);
      expect(await page.locator('#conn-service-test').isDisabled()).toBe(true);
      await shot(page, 'empty');
      await context.close();

      const viewer = await openConsole(h.url, VIEWER_TOKEN);
      for (const id of ['#conn-service-form', '#conn-webhooks-form', '#conn-record-crm-form', '#conn-service-test']) {
        expect([id, await viewer.page.locator(id).isVisible()]).toEqual([id, false]);
      }
      expect(await viewer.page.locator('#conn-service').textContent()).toContain('An admin can change this connection.');
      await shot(viewer.page, 'viewer');
      await viewer.context.close();

      const operator = await openConsole(h.url, OPERATOR_TOKEN);
      expect(await operator.page.locator('#conn-service-test').isVisible()).toBe(true);
      expect(await operator.page.locator('#conn-service-form').isVisible()).toBe(false);
      await shot(operator.page, 'operator');
      await operator.context.close();
      expect([...errors, ...viewer.errors, ...operator.errors]).toEqual([]);

      // From here on, the daemon's address as PUBLIC_URL would give it: the harness listens on a port chosen at start.
      h.config.publicUrl = h.url;
    },
    60_000,
  );

  browserIt(
    'the service: a bad address is shown at its field, a wrong token is refused and saves nothing, the right one connects',
    async () => {
      const { context, page, errors } = await openConsole();
      // Not an API address: class-validator's message, in words, next to the field.
      await page.fill('#conn-service-base_url', h.service.apiBaseUrl.replace(/\/v1$/, '/api'));
      await page.fill('#conn-service-token', 'wrong-token-0000');
      await page.click('#conn-service-submit');
      await page.locator('#conn-service-base_url-error').filter({ hasText: '/v1' }).waitFor();
      expect(await page.locator('#conn-service-base_url').getAttribute('aria-invalid')).toBe('true');

      // A wrong token: the test fails, the reason is shown, nothing is saved.
      await page.fill('#conn-service-base_url', h.service.apiBaseUrl);
      await page.click('#conn-service-submit');
      const refused = page.locator('#conn-service-message .conn-msg.error');
      await refused.waitFor();
      expect(await refused.textContent()).toContain('The service refused the token');
      expect(await refused.textContent()).toContain('HTTP 401');
      await shot(page, 'service-refused');
      const after = await itemOf('service');
      expect(after).toMatchObject({ source: null, status: 'not_configured', settings: null });

      // The right one: saved, connected, its last 4 characters at most.
      await page.fill('#conn-service-token', h.service.token);
      await page.click('#conn-service-submit');
      await waitFor(async () => (await badgeOf(page, 'service').textContent()) === 'connected', 10_000, 'the service badge to say connected');
      await page.locator('#conn-service-message .conn-msg.ok').waitFor();
      const saved = await itemOf('service');
      expect(saved).toMatchObject({ source: 'console', status: 'connected', updated_by: 'admin', read_only: false });
      expect(saved.settings.base_url).toBe(h.service.apiBaseUrl);
      const state = await page.locator('#conn-service-state').textContent();
      expect(state).toContain('console, by admin at');
      expect(await page.locator('#conn-service-token').inputValue()).toBe('');
      if (h.service.token.length >= 12) expect(state).toContain(`ending in …${h.service.token.slice(-4)}`);
      expect(await page.content()).not.toContain(h.service.token);

      // Test: one call with the settings in use; its time shows as the last check.
      await page.click('#conn-service-test');
      await page.locator('#conn-service-test + .inline-msg.ok').waitFor();
      await shot(page, 'service-connected');
      expect(errors).toEqual([]);
      await context.close();
    },
    60_000,
  );

  browserIt(
    'the appointment CRM: a wrong key is refused and saves nothing, the right one connects',
    async () => {
      const { context, page, errors } = await openConsole();
      await page.fill('#conn-appointment-crm-base_url', appointments.url);
      await page.fill('#conn-appointment-crm-api_key', 'not-the-key');
      await page.click('#conn-appointment-crm-submit');
      const refused = page.locator('#conn-appointment-crm-message .conn-msg.error');
      await refused.waitFor();
      expect(await refused.textContent()).toContain('The appointment CRM refused the API key');
      expect(await itemOf('appointment_crm')).toMatchObject({ source: null, settings: null });
      await shot(page, 'appointment-refused');

      await page.fill('#conn-appointment-crm-api_key', appointments.apiKey);
      await page.click('#conn-appointment-crm-submit');
      await waitFor(async () => (await badgeOf(page, 'appointment-crm').textContent()) === 'connected', 10_000, 'the appointment CRM badge');
      expect(await itemOf('appointment_crm')).toMatchObject({ source: 'console', status: 'connected', settings: { base_url: appointments.url } });
      expect(await page.content()).not.toContain(appointments.apiKey);

      // Test while the CRM fails: degraded, with the reason in words; a later good test clears it.
      appointments.injectFault({ method: 'GET', path: /^\/appointments\//, times: 1, status: 503 });
      await page.click('#conn-appointment-crm-test');
      await page.locator('#conn-appointment-crm-test + .inline-msg.error').waitFor();
      await waitFor(async () => (await badgeOf(page, 'appointment-crm').textContent()) === 'degraded', 10_000, 'the appointment CRM badge to say degraded');
      expect(await page.locator('#conn-appointment-crm-state .conn-alert.warn').textContent()).toContain('answered with an error of its own');
      await shot(page, 'appointment-degraded');
      await page.click('#conn-appointment-crm-test');
      await page.locator('#conn-appointment-crm-test + .inline-msg.ok').waitFor();
      await waitFor(
        async () => (await badgeOf(page, 'appointment-crm').textContent()) === 'connected',
        10_000,
        'the appointment CRM badge to say connected again',
      );
      expect(errors).toEqual([]);
      await context.close();
    },
    60_000,
  );

  browserIt(
    'webhooks: a secret set here signs deliveries to the address shown; a rotation keeps the old one beside the new',
    async () => {
      const { context, page, errors } = await openConsole();
      expect(await page.locator('#conn-webhooks-public-url').count()).toBe(0);
      const address = (await page.locator('#conn-webhooks-address-events').textContent())!;
      expect(address).toBe(`${h.url}/webhooks/events`);
      const project = h.service.addProject();
      const drawing = h.service.addDrawing(project.id);
      const body = events.drawingCreated(h.service.drawingView(drawing.id));
      // Before any secret: refused as not configured.
      expect((await sender.deliverOnce(address, body, { secret: EVENTS_SECRET })).status).toBe(404);

      // Too short: said at the field, nothing sent.
      await page.fill('#conn-webhooks-events', 'short');
      await page.click('#conn-webhooks-submit');
      await page.locator('#conn-webhooks-events-error').filter({ hasText: 'at least 16 characters' }).waitFor();
      await page.fill('#conn-webhooks-events', EVENTS_SECRET);
      await page.click('#conn-webhooks-generate-record_prompt');
      recordPromptSecret = await page.locator('#conn-webhooks-record_prompt').inputValue();
      expect(recordPromptSecret).toMatch(/^[0-9a-f]{48}$/);
      await page.click('#conn-webhooks-submit');
      await page.locator('#conn-webhooks-message .conn-msg.ok').waitFor();
      await waitFor(async () => (await badgeOf(page, 'webhooks').textContent()) === 'connected', 10_000, 'the webhooks badge');
      expect(await page.locator('#conn-webhooks-keep-events-0').isChecked()).toBe(true);
      expect(await page.locator('#conn-webhooks-form').textContent()).toContain(`…${EVENTS_SECRET.slice(-4)}`);
      expect(await page.content()).not.toContain(EVENTS_SECRET);
      expect(await page.content()).not.toContain(recordPromptSecret);

      const accepted = await sender.deliverOnce(address, body, { secret: EVENTS_SECRET });
      expect(`${accepted.status} ${accepted.body}`).toMatch(/^200 .*accepted/);
      expect((await sender.deliverOnce(address, body, { secret: 'some-other-secret-000' })).status).toBe(401);

      // Rotation: the new secret added, the old one kept; both sign.
      await page.fill('#conn-webhooks-events', ROTATED_SECRET);
      await page.click('#conn-webhooks-submit');
      await page.locator('#conn-webhooks-message .conn-msg.ok').waitFor();
      await page.locator('#conn-webhooks-keep-events-1').waitFor();
      const webhooks = await itemOf('webhooks');
      expect(webhooks.settings.secrets_last4.events).toEqual([ROTATED_SECRET.slice(-4), EVENTS_SECRET.slice(-4)]);
      expect(webhooks.settings.secrets_last4.record_prompt).toEqual([recordPromptSecret.slice(-4)]);
      const rotated = events.drawingUpdated(h.service.drawingView(drawing.id));
      expect((await sender.deliverOnce(address, rotated, { secret: ROTATED_SECRET })).status).toBe(200);
      await shot(page, 'webhooks');

      // Another admin drops the old secret meanwhile: keeping it from this stale page is refused at its field.
      const elsewhere = await h.admin('/api/connections/webhooks', {
        method: 'PUT',
        json: { events: [`…${ROTATED_SECRET.slice(-4)}`], record_prompt: [`…${recordPromptSecret.slice(-4)}`] },
      });
      expect(elsewhere.status).toBe(200);
      await page.click('#conn-webhooks-submit');
      await page.locator('#conn-webhooks-events-error').filter({ hasText: 'changed meanwhile' }).waitFor();
      expect(await page.locator('#conn-webhooks-message .conn-msg.error').textContent()).toContain('Not saved');
      // A narrow window: one column.
      await page.setViewportSize({ width: 820, height: 900 });
      await shot(page, 'narrow');
      expect(errors).toEqual([]);
      await context.close();
    },
    60_000,
  );

  browserIt(
    'Zoho CRM: Connect sends the browser to the chosen data centre’s consent page with this daemon’s redirect URI',
    async () => {
      const { context, page, errors } = await openConsole();
      const redirectUri = await page.locator('#conn-record-crm-redirect_uri').textContent();
      expect(redirectUri!).toBe(`${h.url}/admin/connections/record-crm/callback`);
      // No secret for a new client: said at its field.
      await page.selectOption('#conn-record-crm-data_centre', 'https://accounts.zoho.eu');
      await page.fill('#conn-record-crm-client_id', '1000.CONSOLETESTCLIENT');
      await page.click('#conn-record-crm-submit');
      await page.locator('#conn-record-crm-client_secret-error').filter({ hasText: 'Client secret' }).waitFor();
      await shot(page, 'zoho-form');

      // Zoho itself is not called: its consent page is answered here.
      let consent: URL | null = null;
      await context.route('https://accounts.zoho.eu/**', (route) => {
        consent = new URL(route.request().url());
        return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Zoho</title><h1>Zoho consent</h1>' });
      });
      await page.fill('#conn-record-crm-client_secret', 'console-test-client-secret');
      await page.click('#conn-record-crm-submit');
      await page.waitForURL(/^https:\/\/accounts\.zoho\.eu\/oauth\/v2\/auth\?/);
      const url = consent as unknown as URL;
      expect(url.searchParams.get('client_id')).toBe('1000.CONSOLETESTCLIENT');
      expect(url.searchParams.get('redirect_uri')).toBe(redirectUri);
      expect(url.searchParams.get('response_type')).toBe('code');
      expect(url.searchParams.get('access_type')).toBe('offline');
      expect(url.searchParams.get('state')).toMatch(/^[\w-]{20,}$/);
      expect(await itemOf('record_crm')).toMatchObject({ source: null, status: 'not_configured' });
      expect(errors).toEqual([]);
      await context.close();
    },
    60_000,
  );

  browserIt(
    'Zoho CRM end to end: Connect, Accept on the consent page, back on the console connected; a record prompt attaches the PDF with that grant; Disconnect revokes it',
    async () => {
      const { context, page, errors } = await openConsole();
      const redirectUri = (await page.locator('#conn-record-crm-redirect_uri').textContent())!;
      zoho.addRedirectUri(redirectUri, ZOHO_CLIENT.clientId);
      // The simulator's accounts server is not one of Zoho's data centres: the advanced field.
      await page.click('#conn-record-crm-form summary');
      await page.fill('#conn-record-crm-accounts_url', zoho.accountsUrl);
      expect(await page.locator('#conn-record-crm-data_centre').isDisabled()).toBe(true);
      const connect = async () => {
        await page.fill('#conn-record-crm-client_id', ZOHO_CLIENT.clientId);
        await page.fill('#conn-record-crm-client_secret', ZOHO_CLIENT.clientSecret);
        await page.click('#conn-record-crm-submit');
        // Zoho's consent page, in this tab.
        await page.waitForURL((url) => url.href.startsWith(`${zoho.accountsUrl}/oauth/v2/auth?`));
        expect(await page.locator('h1').textContent()).toContain(ZOHO_CLIENT.name);
      };

      // Reject: the daemon's page says so and leads back; nothing is connected.
      await connect();
      await page.click('button:has-text("Reject")');
      await page.waitForURL((url) => url.pathname === '/admin/connections/record-crm/callback');
      expect(await page.locator('body').textContent()).toContain('Zoho did not grant access (access_denied)');
      await shot(page, 'zoho-rejected');
      await page.click('a:has-text("Back to the console")');
      await page.locator('#connections-cards').waitFor();
      expect(await badgeOf(page, 'record-crm').textContent()).toBe('not configured');
      expect(await page.locator('#conn-record-crm-message .conn-msg').count()).toBe(0);

      // Accept.
      await page.click('#conn-record-crm-form summary');
      await page.fill('#conn-record-crm-accounts_url', zoho.accountsUrl);
      await connect();
      await shot(page, 'zoho-consent');
      await page.click('button:has-text("Accept")');

      // Back on the console: connected, said once.
      await page.waitForURL(`${h.url}/admin/#connections`);
      await page.locator('#connections-cards').waitFor();
      await waitFor(async () => (await badgeOf(page, 'record-crm').textContent()) === 'connected', 10_000, 'the Zoho CRM badge to say connected');
      expect(await page.locator('#conn-record-crm-message .conn-msg.ok').textContent()).toContain('Zoho CRM is connected');
      expect(zoho.consents.at(-1)).toMatchObject({ clientId: ZOHO_CLIENT.clientId, redirectUri, approved: true });
      const connected = await itemOf('record_crm');
      expect(connected).toMatchObject({ source: 'console', status: 'connected', updated_by: 'admin' });
      expect(connected.settings).toMatchObject({
        accounts_url: zoho.accountsUrl,
        api_domain: zoho.apiDomain,
        client_id: ZOHO_CLIENT.clientId,
        data_centre: null,
      });
      expect(await page.locator('#conn-record-crm-state').textContent()).toContain(`ending in …${ZOHO_CLIENT.clientSecret.slice(-4)}`);
      expect(await page.content()).not.toContain(ZOHO_CLIENT.clientSecret);
      expect(await page.locator('#conn-record-crm-state .conn-detail').textContent()).toBe('Acme Roofing (org 12345), connected as admin@acme.example.');
      await shot(page, 'zoho-connected');
      await page.locator('#conn-record-crm').screenshot({ path: '/tmp/console-connections-zoho-card-connected.png' });

      // Zoho refuses a scope (a connection made before crm-sync asked for more): the card says so, and Reconnect asks
      // Zoho for the full set with the client in use.
      zoho.scopeMismatch = true;
      await page.click('#conn-record-crm-test');
      await page.locator('#conn-record-crm-reconnect').waitFor({ timeout: 10_000 });
      expect(await badgeOf(page, 'record-crm').textContent()).toBe('degraded');
      expect(await page.locator('#conn-record-crm-state .conn-alert').textContent()).toContain('Reconnect to grant them');
      expect(await page.locator('#conn-record-crm-state .conn-msg-detail').textContent()).toMatch(/^reconnect to grant: ZohoCRM\.org\.READ/);
      await page.locator('#conn-record-crm').screenshot({ path: '/tmp/console-connections-zoho-card-reconnect.png' });
      zoho.scopeMismatch = false;
      zoho.autoApprove = true;
      await Promise.all([page.waitForResponse((r) => r.url().includes('/admin/connections/record-crm/callback')), page.click('#conn-record-crm-reconnect')]);
      zoho.autoApprove = false;
      await page.locator('#connections-cards').waitFor();
      await waitFor(async () => (await badgeOf(page, 'record-crm').textContent()) === 'connected', 10_000, 'the Zoho CRM badge to say connected again');
      expect(zoho.consents.at(-1)!.scopes).toEqual(zoho.grantedScopes);

      // A record export prompt, signed with the secret set on the page, to the address it shows.
      h.service.addTemplate('Standard');
      const project = h.service.addProject();
      const drawing = h.service.addDrawing(project.id);
      const recordId = zoho.addRecord('Deals');
      await mapRecord(h, project.id, recordId);
      const address = (await page.locator('#conn-webhooks-address-record_prompt').textContent())!;
      expect(address).toBe(`${h.url}/webhooks/record-crm/export-prompt`);
      const prompt = recordPrompt({ drawing_id: drawing.id, record_crm_module: 'Deals', record_crm_record_id: recordId, yes_no: true });
      const delivered = await sender.deliverOnce(address, prompt, { secret: recordPromptSecret });
      expect(`${delivered.status} ${delivered.body}`).toMatch(/^200 .*accepted/);
      const entry = await waitFor(
        async () => {
          const found = await syncLogEntry(h, { target: `Deals/${recordId}` });
          return found && ['succeeded', 'failed', 'skipped'].includes(found.status) ? found : null;
        },
        20_000,
        'the attach_pdf entry to finish',
      );
      expect([entry.kind, entry.status, entry.error]).toEqual(['attach_pdf', 'succeeded', null]);
      expect(zoho.attachmentsOf('Deals', recordId)).toHaveLength(1);
      // With an access token of the refresh token the consent gave this client.
      const refreshes = zoho.tokenRequests.map((r) => new URLSearchParams(r.body.toString('utf8'))).filter((p) => p.get('grant_type') === 'refresh_token');
      expect(refreshes.length).toBeGreaterThan(0);
      const refreshToken = refreshes.at(-1)!.get('refresh_token')!;
      expect(refreshes.at(-1)!.get('client_id')).toBe(ZOHO_CLIENT.clientId);
      expect(zoho.scopesOf(refreshToken)).toEqual(zoho.grantedScopes);
      const uploads = zoho.api.requestsTo('POST', `/crm/v8/Deals/${recordId}/Attachments`);
      expect(uploads).toHaveLength(1);
      expect(uploads[0].headers.authorization).toMatch(/^Zoho-oauthtoken 1000\.\w+\.\w+$/);

      // Disconnect, after a confirmation: the refresh token revoked at Zoho, the card back to not configured.
      await page.click('#conn-record-crm-remove');
      await page.locator('#conn-record-crm .confirm').waitFor();
      await shot(page, 'zoho-disconnect');
      await page.click('#conn-record-crm .confirm button[data-confirm="ok"]');
      await waitFor(async () => (await badgeOf(page, 'record-crm').textContent()) === 'not configured', 10_000, 'the Zoho CRM badge to say not configured');
      expect(await page.locator('#conn-record-crm-message .conn-msg').textContent()).toContain('Zoho revoked the refresh token');
      // The first consent's refresh token was revoked when Reconnect replaced it; this one now.
      expect(zoho.revokedTokens).toHaveLength(2);
      expect(zoho.revokedTokens.at(-1)).toBe(refreshToken);
      expect(errors).toEqual([]);
      await context.close();
    },
    90_000,
  );

  browserIt(
    'a daemon with another CONNECTIONS_KEY says the saved secrets cannot be read, on the screen and on each card; one without a key says why',
    async () => {
      // Its appointment CRM from the environment: read-only on the console, whatever the database holds.
      const other = await startHarness({
        redisDb: 12,
        databaseUrl: h.databaseUrl,
        env: {
          ...WITHOUT_CONNECTIONS,
          CONNECTIONS_KEY: 'fe'.repeat(32),
          ...appointments.daemonEnv(),
        },
      });
      try {
        const service = await itemOf('service', other);
        expect(service).toMatchObject({ source: 'console', status: 'degraded' });
        expect(service.detail).toContain('cannot be read');
        const { context, page, errors } = await openConsole(other.url);
        await page.locator('#connections-unreadable').waitFor();
        expect(await page.locator('#connections-unreadable').textContent()).toContain('Service');
        expect(await badgeOf(page, 'service').textContent()).toBe('degraded');
        const alert = page.locator('#conn-service-state .conn-alert.error');
        expect(await alert.textContent()).toContain('The saved secrets cannot be read.');
        expect(await page.locator('#conn-webhooks-state .conn-alert.error').count()).toBe(1);
        expect(await page.locator('#connections-unreadable').textContent()).not.toContain('Appointment CRM');
        expect(await page.locator('#conn-appointment-crm-form').count()).toBe(0);
        expect(await page.locator('#conn-appointment-crm-state').textContent()).toContain('environment (read-only)');
        expect(await page.locator('#conn-appointment-crm').textContent()).toContain('APPOINTMENT_CRM_BASE_URL');
        await shot(page, 'wrong-key');
        expect(errors).toEqual([]);
        await context.close();
      } finally {
        await other.close();
      }

      // No key at all (a key file that holds none): nothing can be saved, and the screen says what to do.
      const dir = mkdtempSync(join(tmpdir(), 'crm-sync-key-'));
      const keyFile = join(dir, 'connections.key');
      writeFileSync(keyFile, 'not a key\n');
      const keyless = await startHarness({
        redisDb: 12,
        databaseUrl: h.databaseUrl,
        env: { ...WITHOUT_CONNECTIONS, CONNECTIONS_KEY: '', CONNECTIONS_KEY_FILE: keyFile },
      });
      try {
        const { context, page, errors } = await openConsole(keyless.url);
        const banner = page.locator('#connections-key-problem');
        await banner.waitFor();
        expect(await banner.textContent()).toContain('does not hold a 32-byte key');
        expect(await page.locator('#conn-service-submit').isDisabled()).toBe(true);
        expect(await page.locator('#connections-unreadable').count()).toBe(0);
        expect(await page.locator('#conn-service-state .conn-alert.error').textContent()).toContain('no usable key');
        await shot(page, 'no-key');
        expect(errors).toEqual([]);
        await context.close();
      } finally {
        await keyless.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
