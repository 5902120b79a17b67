/**
 * Headless Chromium for page tests: Debian's `chromium` driven by playwright-core (no browser
 * download). Tests check what the page says (text, attributes), never pixels.
 */
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** A 1280 x 800 page whose script errors fail the test that reads `errors`. */
export async function newPage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  return { page, errors };
}

/** Opens the venue view as the banner's URL does and waits until the APs are drawn. */
export async function openVenueView(page: Page, gatewayUrl: string, token: string, drawn = 1): Promise<void> {
  await page.goto(`${gatewayUrl}/#token=${token}`);
  await page.waitForFunction((n) => ((globalThis as any).venueView?.placed?.length ?? 0) >= n, drawn);
}

/** Canvas positions of the drawn APs (the page publishes them for tests and measurements). */
export async function placedAps(page: Page): Promise<{ serial: string; x: number; y: number }[]> {
  return page.evaluate(() => (globalThis as any).venueView.placed);
}
