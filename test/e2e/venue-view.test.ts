import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/**
 * A plug-in optimizer (serve --rrm-plugin): every 5 GHz radio on a seeded pick of the venue's
 * non-DFS 40 MHz primaries (an AP falls back to a channel of its own for any other).
 */
const PLUGIN = `
export const optimizer = {
  name: 'pick40',
  algorithm: 'OptimizeChannel',
  description: 'test plug-in: each 5 GHz radio on 36, 44, 149 or 157, drawn from the seeded rng',
  run(input: { zone: { serials: readonly string[] }; rng: () => number }): Record<string, Record<string, number>> {
    const plan: Record<string, Record<string, number>> = {};
    for (const s of input.zone.serials) plan[s] = { '5G': [36, 44, 149, 157][Math.floor(input.rng() * 4)]! };
    return plan;
  },
};
`;

type DiffRow = { serial: string; band: string; text: string };
const diffRows = (page: Page): Promise<DiffRow[]> =>
  page.$$eval('#rrm-diff tbody tr', (trs) => trs.map((r) => ({ serial: r.getAttribute('data-serial')!, band: r.getAttribute('data-band')!, text: r.textContent! })));

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
  let pluginDir: string;

  beforeAll(async () => {
    pluginDir = mkdtempSync(join(tmpdir(), 'airtwin-plugin-'));
    writeFileSync(join(pluginDir, 'pick40.ts'), PLUGIN);
    // speed 20: a state per AP every 3 s of wall time, the RRM's 30 s debounce in 1.5 s, a
    // wifi scan per AP every 3 s (the measured effect of an applied run comes from them).
    server = await startTestServer({ sim: true, scenario: 'default', speed: 20, rrmPlugin: join(pluginDir, 'pick40.ts'), rrmWifiScanInterval: 60 });
    serials = server.running.sim!.venue.aps.map((a) => a.serial);
    await until('every AP has sent a state', async () => serials.filter((s) => server.running.fleet.details(s)?.lastState).length, (n) => n === serials.length);
    browser = await launchBrowser();
    ({ page, errors } = await newPage(browser));
    await openVenueView(page, server.running.gatewayUrl, ADMIN_TOKEN, serials.length);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(pluginDir, { recursive: true, force: true });
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

  it('lists every mode /algorithms gives, the plug-in among them', async () => {
    expect((await server.rrm('POST', '/setTopology', { body: { venue: serials } })).status).toBe(200);
    await page.click('#tab-rrm');
    await page.waitForSelector('#rrm-dry-run');
    const listed = async () => page.$$eval('#rrm-mode option', (os) => os.map((o) => `${(o as unknown as { value: string }).value}${o.getAttribute('data-plugin') ? '*' : ''}`));
    await expect.poll(listed).toEqual(['random', 'least_used', 'unmanaged_aware', 'weighted', 'annealing', 'exact', 'pick40*']);
    expect(await page.textContent('#rrm-mode option[value="pick40"]')).toBe('pick40 (plug-in)');
    await page.selectOption('#rrm-algorithm', 'OptimizeTxPower');
    await expect.poll(listed).toEqual(['random', 'measure_ap_client', 'measure_ap_ap', 'location_optimal', 'coverage_cci']);
    await page.selectOption('#rrm-algorithm', 'OptimizeChannel');
    // The charts follow the zone picked in the panel, before any run.
    await page.click('#tab-charts');
    await expect.poll(() => page.textContent('#chart-score-missing').catch(() => '')).toContain('No RRM run of zone venue');
    expect(await page.textContent('#charts')).toContain('zone venue, 5G');
    await page.click('#tab-rrm');
    await page.waitForSelector('#rrm-dry-run');
  });

  it('shows a dry run as a diff with its score; Apply applies that same plan and the APs take it', async () => {
    await page.selectOption('#rrm-mode', 'pick40');
    await page.click('#rrm-dry-run');
    await page.waitForSelector('#rrm-diff');
    expect(await page.textContent('#rrm-plan')).toContain('pick40 on venue (dry run)');
    const seed = (await page.textContent('#rrm-seed'))!;
    expect(seed).toMatch(/^\d+$/);
    // The score before and after, as the RRM's answer gives it.
    const cci = page.locator('#rrm-score tr[data-figure="cci_mw"]');
    const shown = { before: Number(await cci.getAttribute('data-before')), after: Number(await cci.getAttribute('data-after')) };
    const runs = (await server.rrm('GET', '/runs?zone=venue')).body as { seed: string; dryRun: boolean; plan: unknown; score: { before: { cci_mw: number }; after: { cci_mw: number } } }[];
    expect(runs[0]!.seed).toBe(seed);
    expect(runs[0]!.dryRun).toBe(true);
    expect(shown).toEqual({ before: runs[0]!.score.before.cci_mw, after: runs[0]!.score.after.cci_mw });

    const dry = await diffRows(page);
    expect(dry.length).toBeGreaterThan(0);
    const planned = new Map<string, { band: string; from: number; to: number }>();
    for (const r of dry) {
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
    // Apply sent the dry run's seed again: the plan applied is the one that was shown.
    expect(await page.textContent('#rrm-seed')).toBe(seed);
    expect(await diffRows(page)).toEqual(dry);
    const applied = ((await server.rrm('GET', '/runs?zone=venue')).body as { seed: string; applied: boolean; plan: unknown }[])[0]!;
    expect(applied).toMatchObject({ seed, applied: true, plan: runs[0]!.plan });
    // The page follows it until every changed AP reports its new channel in a state.
    await page.waitForSelector('#rrm-converge.ok', { timeout: 25_000 });
    await page.click('#tab-aps');
    await page.click('header button[data-band="5G"]');
    const listed = await listedChannels(page);
    for (const [serial, p] of planned) {
      expect(listed[serial]).toBe(String(p.to));
      expect((await apiChannels(server, serial))[p.band]).toBe(p.to);
    }
    expect(errors).toEqual([]);
  });

  it('charts the zone\'s CCI per run: predicted for the dry run and the applied run, then measured after the apply', async () => {
    await page.click('#tab-charts');
    const chart = page.locator('#chart-score');
    await chart.waitFor();
    expect(Number(await chart.getAttribute('data-before'))).toBeGreaterThanOrEqual(2);
    expect(Number(await chart.getAttribute('data-after'))).toBeGreaterThanOrEqual(2);
    // Every run is a marker too.
    expect(await page.textContent('#charts')).toMatch(/[2-9] RRM run\(s\) marked/);
    // The RRM measures the applied run from the APs' next scans; the chart reloads on its own.
    await expect.poll(async () => Number(await chart.getAttribute('data-measured')), { timeout: 60_000, interval: 100 }).toBeGreaterThanOrEqual(1);
    expect(await chart.locator('canvas').count()).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  }, 90_000);
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
