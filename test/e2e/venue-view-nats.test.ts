import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startSimulateLoad, type LoadRun } from '../../src/runtime/simulate-load.js';
import { ADMIN_TOKEN, startTestServer, type TestServer } from '../helpers/server.js';
import { startNats, type TestNats } from '../helpers/nats.js';
import { startEdgeSide, type EdgeSide } from '../integration/nats/harness.js';
import { launchBrowser, newPage, openVenueView, placedAps } from '../helpers/browser.js';
import { until } from '../helpers/until.js';

const LAB = ['a0b1c2000001', 'a0b1c2000002', 'a0b1c2000003'];

describe('venue view in Chromium: real APs over NATS (no positions)', () => {
  let nats: TestNats;
  let server: TestServer;
  let edge: EdgeSide;
  let load: LoadRun;
  let browser: Browser;

  beforeAll(async () => {
    nats = await startNats({ jetstream: true });
    server = await startTestServer({ sim: false, nats: nats.url });
    edge = await startEdgeSide(nats.url);
    // The lab's APs as real ones: uCentral over websockets to the edge, NATS to serve.
    load = await startSimulateLoad({ scenario: 'lab', edge: edge.edge.url, speed: 10 });
    await until('the lab APs report states', async () => LAB.filter((s) => server.running.fleet.details(s)?.lastState).length, (n) => n === LAB.length);
    for (const s of LAB) {
      const scan = await server.gw('POST', `/device/${s}/wifiscan`, { body: { serialNumber: s } });
      expect(scan.status).toBe(200);
    }
    await until('the scans are stored', async () => (await server.gw('GET', '/venue/topology')).body, (t) => Object.keys(t.scannedAt).length === LAB.length);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await load?.stop();
    await edge?.stop();
    await server?.close();
    await nats?.stop();
  });

  it('lays the APs out from their scans: every AP drawn, linked to the APs it hears, the neighbour marked', async () => {
    const topo = (await server.gw('GET', '/venue/topology')).body;
    expect(topo.edges.length).toBeGreaterThan(0);
    for (const e of topo.edges) expect(LAB).toContain(e.a);
    // The lab's one unmanaged neighbour is heard and kept apart from the APs.
    expect(topo.unmanaged.length).toBeGreaterThan(0);

    const { page, errors } = await newPage(browser);
    await openVenueView(page, server.running.gatewayUrl, ADMIN_TOKEN, LAB.length);
    expect(await page.getAttribute('#view-topology', 'class')).toBe('on');
    expect(await page.$('#view-map')).toBeNull();
    expect((await placedAps(page)).map((p) => p.serial).sort()).toEqual(LAB);
    // The heat map needs positions: the page offers none.
    expect(await page.$('#layer')).toBeNull();
    const snapshot = (await server.gw('GET', '/venue')).body;
    expect(snapshot.mode).toBe('topology');
    expect((await server.gw('POST', '/venue/heatmap', { body: { floor: 0, band: '5G' } })).status).toBe(404);
    // The same AP list and RRM panel as on a floor plan.
    await page.click('#tab-aps');
    expect(await page.$$eval('#ap-list tbody tr', (rows) => rows.map((r) => r.getAttribute('data-serial')))).toEqual(LAB);
    expect(errors).toEqual([]);
  });
});
