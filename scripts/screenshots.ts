import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Page } from 'playwright-core';

/**
 * `npm run screenshots`: runs the demo (`scripts/demo.ts`), opens each screen of its console in Debian's Chromium
 * (playwright-core, never a downloaded browser) and writes `docs/images/<screen>.png`. Fails when a screen does not
 * render what it should, or the page reports an error (a script error, a failed request, a console error): CI runs
 * it after the tests. The images are not compared with earlier ones.
 */
const CHROMIUM = '/usr/bin/chromium';
const PORT = process.env.SCREENSHOTS_PORT ?? '3199';
const OUT = 'docs/images';
const TOKEN = 'demo-admin-token-not-secret';

interface Screen {
  name: string;
  hash: string;
  /** What shows once the screen has drawn its data. */
  ready: string;
}

if (!existsSync(CHROMIUM)) {
  console.error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  process.exit(1);
}
mkdirSync(OUT, { recursive: true });

// A database and queue prefix of its own (crm_sync_screenshots): a demo left running on crm_sync_demo is not touched.
const demo = spawn(process.execPath, ['build/scripts/demo.js'], {
  env: { ...process.env, PORT, DEMO_NAME: 'screenshots' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
/** Stops the demo (and so its daemon) and waits until it has ended: a daemon left behind would hold the port. */
const stopDemo = async () => {
  if (demo.exitCode !== null || demo.signalCode !== null) return;
  const ended = once(demo, 'exit');
  demo.kill('SIGTERM');
  await ended;
};
const tour = await new Promise<string>((resolve, reject) => {
  let text = '';
  createInterface({ input: demo.stdout! }).on('line', (line) => {
    text += line + '\n';
    if (line.startsWith('Ctrl-C stops the demo')) resolve(text);
  });
  demo.once('exit', (code) => reject(new Error(`the demo ended (${code}) before its tour:\n${text}`)));
});
const failedLine = /^\d+ failed: .*/m.exec(tour);
if (failedLine) await fail(`the demo left failed actions: ${failedLine[0]}`);
const address = async (label: string) => {
  const match = new RegExp(`${label}\\s+(\\S+)`).exec(tour);
  return match ? new URL(match[1]) : fail(`the demo's tour names no "${label}":\n${tour}`);
};
const appointmentProject = await address("Maria Alvarez's project");
const dealProject = await address("Dana Whitfield's project \\(the Deal\\)");
const base = `${appointmentProject.origin}/admin`;

const screens: Screen[] = [
  { name: 'overview', hash: '#overview', ready: '#overview-funnel .funnel-crm[data-crm="record"] .funnel-step' },
  { name: 'revenue', hash: '#revenue', ready: '#revenue-body .revenue-kind[data-kind="amount"] tr[data-drift]' },
  { name: 'project', hash: appointmentProject.hash, ready: '#project-drifts table' },
  { name: 'project-deal', hash: dealProject.hash, ready: '#project-drifts table' },
  { name: 'suggestions', hash: '#suggestions', ready: '.card.suggestion li.candidate' },
  { name: 'mappings', hash: '#mappings', ready: '#map-rows tr td.record' },
  { name: 'automations', hash: '#automations', ready: '#automations-cards #auto-record-form' },
  { name: 'sync-log', hash: '#logs', ready: '#log-rows tr.row' },
  { name: 'sync-log-funnel', hash: '#logs/?crm=record&kind=update_deal&status=succeeded', ready: '#log-rows tr.row' },
  { name: 'inbox', hash: '#inbox', ready: '#inbox-rows tr.row' },
  { name: 'connections', hash: '#connections', ready: '#connections-cards' },
];

const { chromium } = await import('playwright-core');
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--no-first-run'],
});
const errors: string[] = [];
try {
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  const page = await context.newPage();
  await page.goto(base);
  await page.fill('#token-input', TOKEN);
  await page.click('#login-button');
  await page.locator('#app').waitFor({ state: 'visible' });
  // Watched from the sign-in on: before it, the page's first question (who am I?) is refused with a 401, and says so.
  page.on('pageerror', (err) => errors.push(`script error: ${String(err)}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console error: ${msg.text()}`);
  });
  page.on('requestfailed', (req) => errors.push(`request failed: ${req.url()} ${req.failure()?.errorText ?? ''}`));
  for (const screen of screens) await shoot(page, screen);
  await context.close();
} catch (err) {
  errors.push(String(err));
} finally {
  await browser.close();
}
if (errors.length) await fail(`The console reported errors:\n  ${errors.join('\n  ')}`);
await stopDemo();
console.log(`Wrote ${screens.length} screenshots to ${OUT}/: ${screens.map((s) => `${s.name}.png`).join(', ')}`);

async function shoot(page: Page, screen: Screen): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(screen.hash)}`);
  await page.locator(screen.ready).first().waitFor({ state: 'visible', timeout: 10_000 });
  // The screen's other requests (counters, names) settle before the picture.
  await page.waitForLoadState('networkidle');
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: `${OUT}/${screen.name}.png`, fullPage: true });
}

async function fail(message: string): Promise<never> {
  console.error(message);
  await stopDemo();
  process.exit(1);
}
