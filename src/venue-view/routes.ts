/**
 * The venue view's data routes under /api/v1/venue (the gateway's auth applies): the snapshot
 * the page starts from, heat maps, the scan topology and the chart series.
 */
import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { notFound } from '../errors.js';
import { errorResponses } from '../server/schemas.js';
import { normalizeSerial } from '../protocol/serial.js';
import { shadowField } from '../../simulator/world/shadowing.js';
import { chartSeries } from './charts.js';
import { floorPlanOf } from './floor-plan.js';
import { encodeHeatMap, heatMap, heatSources, type HeatMap } from './heatmap.js';
import { latestScanEntries, topologyOf } from './topology.js';
import type { VenueViewDeps } from './deps.js';
import type { ApViews } from './ap-views.js';
import { ChartsAnswer, ChartsQuery, HeatMapAnswer, HeatMapBody, TopologyAnswer, VenueSnapshot } from './schemas.js';

const HOUR_S = 3600;

export async function venueRoutes(api: FastifyInstance, deps: VenueViewDeps, views: ApViews): Promise<void> {
  const plan = deps.venue ? floorPlanOf(deps.venue) : undefined;
  // The heat map of the radios as they are, per floor and band, until a radio changes.
  const current = new Map<string, HeatMap>();

  api.get('/venue', {
    schema: { tags: ['venue view'], summary: 'The venue as the view starts from it: floor plan (if known), APs, where the RRM listens', response: { 200: VenueSnapshot, ...errorResponses } },
  }, async () => {
    const rrm = deps.rrm();
    return {
      name: plan?.name ?? 'devices', mode: plan ? 'floorplan' as const : 'topology' as const, now: deps.clock.now(),
      ...(plan ? { plan } : {}), aps: views.serials().map((s) => views.summary(s)), rrm: { port: rrm?.port ?? null, tls: rrm?.tls ?? false },
    };
  });

  api.post<{ Body: Static<typeof HeatMapBody> }>('/venue/heatmap', {
    schema: { tags: ['venue view'], summary: 'Best RSSI, SINR and serving channel on a grid over one floor, for the radios as they are or a proposed plan', body: HeatMapBody, response: { 200: HeatMapAnswer, ...errorResponses } },
  }, async (req) => {
    const v = deps.venue;
    if (!v) throw notFound('venue', 'This venue has no floor plan (its APs are not simulated): use the topology view.');
    const { floor, band } = req.body;
    if (floor >= v.world.geometry.floors.length) throw notFound('floor', `The venue has ${v.world.geometry.floors.length} floor(s); floor ${floor} does not exist.`);
    const proposed = req.body.plan !== undefined && (Object.keys(req.body.plan.channels ?? {}).length + Object.keys(req.body.plan.txPowers ?? {}).length) > 0;
    const key = `${floor}/${band}/${v.radioEpoch}`;
    const began = performance.now();
    let map = proposed ? undefined : current.get(key);
    if (!map) {
      const sources = heatSources(v.aps, v.apField, v.neighbours, (p) => shadowField(v.world.shadowing, p), req.body.plan);
      map = heatMap(v.world, floor, band, sources);
      if (!proposed) {
        for (const k of current.keys()) if (!k.endsWith(`/${v.radioEpoch}`)) current.delete(k);
        current.set(key, map);
      }
    }
    return { ...encodeHeatMap(map), computeMs: Math.round(performance.now() - began) };
  });

  api.get('/venue/topology', {
    schema: { tags: ['venue view'], summary: 'Who hears whom in the APs\' latest scans (for venues without positions)', response: { 200: TopologyAnswer, ...errorResponses } },
  }, async () => {
    const serials = views.serials();
    const { entries, scannedAt } = await latestScanEntries(deps.store, serials);
    return { ...topologyOf(entries, views.servedBy()), scannedAt };
  });

  api.get<{ Querystring: Static<typeof ChartsQuery> }>('/venue/charts', {
    schema: { tags: ['venue view'], summary: 'Channel utilisation and clients per AP over time, RRM runs as markers', querystring: ChartsQuery, response: { 200: ChartsAnswer, ...errorResponses } },
  }, async (req) => {
    const q = req.query;
    const to = q.to ?? Math.floor(deps.clock.now() / 1000);
    const from = q.from ?? to - HOUR_S;
    const zones = deps.zones();
    if (q.zone !== undefined && !zones[q.zone]) throw notFound('zone', `Unknown zone '${q.zone}'.`);
    const serials = q.serial !== undefined ? [normalizeSerial(q.serial)] : q.zone !== undefined ? zones[q.zone]! : views.serials();
    const series = await chartSeries(deps.store, { serials, band: q.band ?? '5G', from, to }, q.zone);
    const score = q.zone !== undefined && deps.scoreSeries ? await deps.scoreSeries(q.zone, from, to) : undefined;
    return { ...series, ...(score ? { score } : {}) };
  });
}
