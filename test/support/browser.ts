import { existsSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/** Debian's Chromium: the only browser the tests drive (never a downloaded build). */
export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);

/** `it` for a browser test: skipped, loudly, where Chromium is missing; CI installs it, so there it always runs. */
export function browserTestOf(file: string): typeof it {
  if (!haveChromium) console.warn(`${file}: ${CHROMIUM} is missing, the browser tests are SKIPPED (apt-get install -y chromium)`);
  return haveChromium || process.env.CI ? it : (it.skip as typeof it);
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * A signed-in console page: opens `url` + `/admin` + `hash`, signs in with `token`, waits for `ready`. Script errors
 * are collected in `errors`, except the failed loads of refused API answers (`refusedStatuses`) the page shows.
 */
export async function openConsolePage(
  browser: Browser,
  options: { url: string; token: string; hash?: string; ready: string; refusedStatuses: number[] },
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  const refused = new RegExp(`^Failed to load resource: the server responded with a status of (${options.refusedStatuses.join('|')})`);
  page.on('pageerror', (err) => errors.push(String(err)));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !refused.test(msg.text())) errors.push(msg.text());
  });
  await page.goto(`${options.url}/admin${options.hash ?? ''}`);
  await page.fill('#token-input', options.token);
  await page.click('#login-button');
  await page.locator(options.ready).waitFor({ state: 'visible' });
  return { context, page, errors };
}
