import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.js';
import { launchBrowser, newPage, openVenueView, placedAps } from '../helpers/browser.js';
import { until } from '../helpers/until.js';

/** The channels an AP's last state reports through the gateway API, per band. */
async function apiChannels(s: TestServer, serial: string): Promise<Record<string, number>> {
  const a = await s.gw('GET', `/device/${serial}/statistics?lastOnly=true`);
  const doc = a.body.values ? JSON.parse(a.body.values[0].data) : a.body;
  return Object.fromEntries((doc.radios as { band: string[]; channel: number }[]).map((r) => [r.band[0], r.channel]));
}

/** serial -> channel shown in the AP list for the band selected. */
async function listedChannels(page: Page): Promise<Record<string, string>> {
  return page.$$eval('#ap-list tbody tr', (rows) => Object.fromEntries(rows.map((r) => [r.getAttribute('data-serial'), r.querySelector('.ch')!.textContent])));
}

describe('venue view in Chromium: the default venue', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let serials: string[];

  beforeAll(async () => {
    // speed 20: a state per AP every 3 s of wall time, the RRM's 30 s debounce in 1.5 s.
    server = await startTestServer({ sim: true, scenario: 'default', speed: 20 });
    serials = server.running.sim!.venue.aps.map((a) => a.serial);
    await until('every AP has sent a state', async () => serials.filter((s) => server.running.fleet.details(s)?.lastState).length, (n) => n === serials.length);
    browser = await launchBrowser();
    ({ page, errors } = await newPage(browser));
    await openVenueView(page, server.running.gatewayUrl, ADMIN_TOKEN, serials.length);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('draws every AP of the venue, each with the channels the API reports', async () => {
    expect((await placedAps(page)).map((p) => p.serial).sort()).toEqual([...serials].sort());
    await page.click('#tab-aps');
    for (const band of ['5G', '2G']) {
      await page.click(`header button[data-band="${band}"]`);
      const listed = await listedChannels(page);
      for (const s of serials) expect(listed[s], `${s} ${band}`).toBe(String((await apiChannels(server, s))[band]));
    }
    // Hovering an AP on the map names it with its channels.
    await page.click('header button[data-band="5G"]');
    const ap = (await placedAps(page))[0]!;
    const box = (await page.locator('#venue-canvas').boundingBox())!;
    await page.mouse.move(box.x + ap.x, box.y + ap.y);
    const tip = page.locator('#tooltip');
    await expect.poll(() => tip.getAttribute('data-serial')).toBe(ap.serial);
    expect(await tip.textContent()).toContain(`5G: ch ${(await apiChannels(server, ap.serial))['5G']}/`);
    expect(await page.textContent('#venue-name')).toBe('default');
    expect(await page.textContent('#live-status')).toBe('live');
    expect(errors).toEqual([]);
  });

  it('draws a heat map and says how much of the floor it covers', async () => {
    await page.selectOption('#layer', 'rssi');
    await expect.poll(() => page.textContent('#heat-legend').catch(() => '')).toMatch(/best RSSI -90…-30 dBm; \d+ % of the floor ≥ -67 dBm/);
    await page.selectOption('#layer', 'none');
  });

  it('shows a dry run as a diff of old -> new channels, then Apply moves the APs on the map after their next states', async () => {
    expect((await server.rrm('POST', '/setTopology', { body: { venue: serials } })).status).toBe(200);
    await page.click('#tab-rrm');
    await page.waitForSelector('#rrm-dry-run');
    await page.selectOption('#rrm-mode', 'random');
    await page.click('#rrm-dry-run');
    await page.waitForSelector('#rrm-diff');
    expect(await page.textContent('#rrm-plan')).toContain('(dry run)');
    const rows = await page.$$eval('#rrm-diff tbody tr', (trs) => trs.map((r) => ({ serial: r.getAttribute('data-serial')!, band: r.getAttribute('data-band')!, text: r.textContent! })));
    expect(rows.length).toBeGreaterThan(0);
    const planned = new Map<string, { band: string; from: number; to: number }>();
    for (const r of rows) {
      const m = /ch (\d+) → (\d+)/.exec(r.text)!;
      expect(Number(m[1])).toBe((await apiChannels(server, r.serial))[r.band]);
      expect(m[2]).not.toBe(m[1]);
      planned.set(r.serial, { band: r.band, from: Number(m[1]), to: Number(m[2]) });
    }
    // A dry run changes nothing.
    const [first, plan] = [...planned][0]!;
    expect((await apiChannels(server, first))[plan.band]).toBe(plan.from);

    await page.click('#rrm-apply');
    await page.waitForSelector('text=(applied)');
    // The applied plan is the one the RRM just computed (a new random draw): the page follows it
    // until every changed AP reports its new channel in a state.
    await page.waitForSelector('#rrm-converge.ok', { timeout: 25_000 });
    const applied = await page.$$eval('#rrm-diff tbody tr', (trs) => trs.map((r) => ({ serial: r.getAttribute('data-serial')!, band: r.getAttribute('data-band')!, to: Number(/→ (\d+)/.exec(r.textContent!)![1]) })));
    await page.click('#tab-aps');
    await page.click('header button[data-band="5G"]');
    const listed = await listedChannels(page);
    for (const a of applied.filter((x) => x.band === '5G')) {
      expect(listed[a.serial]).toBe(String(a.to));
      expect((await apiChannels(server, a.serial))['5G']).toBe(a.to);
    }
    expect(errors).toEqual([]);
  });
});

describe('venue view: the page and its files', () => {
  it('is printed in the banner with the generated token and served with its libraries, no token needed, nothing else from node_modules', async () => {
    const lines: string[] = [];
    const server = await startTestServer({ sim: false, apiTokens: [] }, { print: (l) => lines.push(l) });
    try {
      const base = server.running.gatewayUrl;
      expect(lines).toContain(`  view     ${base}/#token=${server.running.generatedToken}`);
      const page = await fetch(`${base}/`);
      expect(page.headers.get('content-type')).toContain('text/html');
      const html = await page.text();
      for (const m of html.matchAll(/"(\/venue\/vendor\/[^"]+)"/g)) expect((await fetch(`${base}${m[1]}`)).status, m[1]).toBe(200);
      expect((await fetch(`${base}/venue/app.js`)).status).toBe(200);
      expect((await fetch(`${base}/venue/vendor/../../package.json`)).status).toBe(404);
      expect((await fetch(`${base}/venue/vendor/d3-array.mjs`)).status).toBe(404);
      // The data is behind the API's auth.
      expect((await fetch(`${base}/api/v1/venue`)).status).toBe(401);
    } finally {
      await server.close();
    }
  });
});
