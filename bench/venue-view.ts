/**
 * The venue view on the `hall` venue (200 APs, ~1,400 stations present) at --speed 10, in
 * headless Chromium: first paint (navigation start to the APs drawn, median of 5 loads), heat
 * maps (request to answer as the page sees it: each band's first, uncached; then proposed plans,
 * never cached), and the live feed over 60 s of wall time (lag from the server's send to the end
 * of the page's handling; a page that fell behind would show a growing lag). Targets: first paint
 * < 2 s, heat map < 1 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { SERVE_DEFAULTS } from '../src/config/schema.js';
import { startServe } from '../src/runtime/serve.js';
import { launchBrowser, newPage } from '../test/helpers/browser.js';
import { median, percentile, report } from './_report.js';

const TOKEN = 'bench-venue-view-token';
const dataDir = mkdtempSync(join(tmpdir(), 'airtwin-bench-vv-'));
const silent = new Writable({ write: (_c, _e, cb) => cb() });
const serve = await startServe({ ...SERVE_DEFAULTS, dataDir, gatewayPort: 0, rrmPort: 0, scenario: 'hall', speed: 10, logLevel: 'silent', apiTokens: [`${TOKEN}:admin`] }, { print: () => undefined, logDestination: silent });
const browser = await launchBrowser();
try {
  const serials = serve.sim!.venue.aps.map((a) => a.serial);
  const began = Date.now();
  while (serials.some((s) => !serve.fleet.details(s)?.lastState)) {
    if (Date.now() - began > 120_000) throw new Error('the hall APs did not all report a state in 2 minutes');
    await new Promise((r) => setTimeout(r, 200));
  }
  console.log(`hall: ${serials.length} APs, ${serve.sim!.venue.clients.filter((c) => c.present).length} stations present, speed 10`);
  const { page, errors } = await newPage(browser);
  const paints: number[] = [];
  for (let i = 0; i < 5; i++) {
    await page.goto('about:blank');
    await page.goto(`${serve.gatewayUrl}/#token=${TOKEN}`);
    await page.waitForFunction((n) => ((globalThis as any).venueView?.placed?.length ?? 0) >= n && (globalThis as any).venueView.firstPaintMs !== undefined, serials.length);
    paints.push(await page.evaluate(() => (globalThis as any).venueView.firstPaintMs as number));
  }
  console.log(`first paint (ms, navigation start to 200 APs drawn): ${paints.map((p) => p.toFixed(0)).join(', ')}; median ${median(paints).toFixed(0)}`);

  const computed: number[] = [];
  const heat = async (action: () => Promise<unknown>): Promise<number> => {
    await page.evaluate(() => { (globalThis as any).venueView.heatMs = undefined; });
    await action();
    await page.waitForFunction(() => (globalThis as any).venueView.heatMs !== undefined);
    computed.push(await page.evaluate(() => (globalThis as any).venueView.heatComputeMs as number));
    return page.evaluate(() => (globalThis as any).venueView.heatMs as number);
  };
  const fresh: string[] = [];
  fresh.push(`5G ${(await heat(() => page.selectOption('#layer', 'rssi'))).toFixed(0)}`);
  fresh.push(`2G ${(await heat(() => page.click('header button[data-band="2G"]'))).toFixed(0)}`);
  await page.click('header button[data-band="5G"]');
  console.log(`heat map, first of each band (ms, uncached): ${fresh.join(', ')}`);
  await fetch(`${serve.rrmUrl}/api/v1/setTopology`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ hall: serials }) });
  await page.reload();
  await page.waitForSelector('#rrm-dry-run');
  const proposed: number[] = [];
  for (let i = 0; i < 5; i++) {
    await page.selectOption('#rrm-mode', 'random');
    const t = performance.now();
    if (i === 0) {
      await page.click('#rrm-dry-run');
      await page.waitForSelector('#rrm-diff');
      console.log(`dry run of a 200-AP zone in the page: ${(performance.now() - t).toFixed(0)} ms`);
      await page.selectOption('#layer', 'sinr');
      proposed.push(await heat(() => page.selectOption('#heat-for', 'proposed')));
    } else {
      proposed.push(await heat(() => page.click('#rrm-dry-run')));
    }
  }
  console.log(`heat map of a proposed plan (ms, computed each time): ${proposed.map((p) => p.toFixed(0)).join(', ')}; median ${median(proposed).toFixed(0)}`);
  console.log(`  of which the server's grid (ms): ${computed.join(', ')}`);

  await page.evaluate(() => { const s = (globalThis as any).venueView.liveStats; s.lagMs.length = 0; s.handleMs.length = 0; s.maxLagMs = 0; s.messages = 0; });
  await page.waitForTimeout(60_000);
  const live = await page.evaluate(() => (globalThis as any).venueView.liveStats);
  console.log(`live, 60 s at speed 10: ${live.messages} messages; lag p50 ${percentile(live.lagMs, 50).toFixed(0)} ms, p95 ${percentile(live.lagMs, 95).toFixed(0)} ms, max ${live.maxLagMs.toFixed(0)} ms; handling p95 ${percentile(live.handleMs, 95).toFixed(1)} ms`);
  if (errors.length > 0) console.log(`page errors: ${errors.join(' | ')}`);
  report({ bench: 'venue-view', metric: 'first paint of the hall venue (median of 5 loads)', value: Math.round(median(paints)), unit: 'ms', baseline: null, baselineName: null });
} finally {
  await browser.close();
  await serve.close();
  rmSync(dataDir, { recursive: true, force: true });
}
