/**
 * `airtwin arena`: channel modes (built-in and plug-ins) × scenarios × seeds, offline: each venue
 * runs on its own virtual clock for a warm-up (clients associate), the APs' reports (state,
 * capabilities, a verbose scan) become the RRM model, and every mode plans every zone from it.
 * Each plan is scored by the objective (CCI, src/rrm/score/cci.ts) and compared with the exact
 * optimum where HiGHS can solve the zone (its proven lower bound gives every plan's gap).
 * Zones: one per floor of the venue (the whole venue when it has one floor), with the default
 * configuration (no DFS opt-in). No servers, no store.
 */
import { writeFileSync } from 'node:fs';
import cliProgress from 'cli-progress';
import { VirtualClock } from '../../simulator/clock.js';
import { startClients } from '../../simulator/clients/dynamics.js';
import { stateDocument } from '../../simulator/ap/frames.js';
import { scanEntries } from '../../simulator/ap/scan.js';
import { loadScenario, scenarioStart } from '../../simulator/scenario.js';
import { buildVenue } from '../../simulator/venue.js';
import { channelProblem } from '../rrm/algorithms/channel-problem.js';
import { loadSolver, provenGap, solveExact } from '../rrm/algorithms/exact.js';
import { loadPluginFile } from '../rrm/algorithms/plugin.js';
import { modesOf, registerOptimizer, runAlgorithm } from '../rrm/algorithms/registry.js';
import { defaultEffectiveConfig } from '../rrm/config/layered.js';
import { buildModel } from '../rrm/model/build.js';
import type { RrmModel } from '../rrm/model/types.js';
import type { EffectiveConfig } from '../rrm/schemas/device-config.js';
import { scoreCci } from '../rrm/score/cci.js';

export const SHIPPED_SCENARIOS = ['lab', 'default', 'hotel', 'hall'];

export interface ArenaOptions {
  scenarios: string[];
  seeds: number[];
  /** Channel modes; default: every mode but `random` and `exact` (exact is the reference). */
  modes?: string[];
  plugin?: string;
  /** Virtual time each venue runs before its reports are read, ms. */
  warmupMs: number;
  /** Solver time limit per band, s. */
  exactTimeLimit: number;
  /** Zones with more APs than this get no exact reference. */
  exactMaxAps: number;
  chart?: string;
  progress?: NodeJS.WritableStream;
}

export interface ArenaCell { cci_mw: number; gap: number | null; ms: number }
export interface ArenaRow {
  scenario: string;
  zone: string;
  seed: number;
  aps: number;
  start_mw: number;
  /** Proven lower bound on the zone's CCI (mW); null when not solved. */
  bound: number | null;
  optimal: boolean;
  exactMs: number | null;
  modes: Record<string, ArenaCell>;
}
export interface ArenaSummary {
  mode: string;
  /** Median gap to the proven bound over the zones with one. */
  medianGap: number | null;
  medianMs: number;
  /** Median CCI relative to least_used (1 = same). */
  vsLeastUsed: number | null;
}
export interface ArenaResult { rows: ArenaRow[]; summary: ArenaSummary[]; perScenario: Record<string, ArenaSummary[]> }

interface Instance { scenario: string; seed: number; zone: string; serials: string[]; model: RrmModel; configs: Map<string, EffectiveConfig> }

/** The zones of one venue at one seed, with the model built from what its APs report. */
export function venueInstances(scenarioName: string, seed: number, warmupMs: number): Instance[] {
  const { scenario } = loadScenario(scenarioName);
  const clock = new VirtualClock(scenarioStart(scenario));
  const venue = buildVenue(scenario, clock, seed);
  startClients(venue);
  clock.runUntil(venue.start + warmupMs);
  const t = clock.now();
  const model = buildModel(venue.aps.map((ap) => ({
    serial: ap.serial,
    states: [{ recorded: t, state: stateDocument(venue, ap) }],
    scans: [{ recorded: t, entries: scanEntries(venue, ap, {}, true) }],
    capabilities: ap.capabilities,
    activeConfig: { radios: ap.radios.map((r) => ({ band: r.band, channel: r.channel, 'channel-width': r.width, 'tx-power': r.txPower })) },
  })));
  const floors = new Map<number, string[]>();
  for (const ap of venue.aps) {
    const f = ap.pos.floor;
    (floors.get(f) ?? floors.set(f, []).get(f)!).push(ap.serial);
  }
  const configs = new Map(venue.aps.map((ap) => [ap.serial, defaultEffectiveConfig()]));
  const zones = floors.size <= 1 ? [['venue', venue.aps.map((a) => a.serial)] as const]
    : [...floors].sort((a, b) => a[0] - b[0]).map(([f, s]) => [`floor${f}`, s] as const);
  return zones.map(([zone, serials]) => ({ scenario: scenarioName, seed, zone, serials: [...serials], model, configs }));
}

const median = (xs: number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export async function runArena(opts: ArenaOptions): Promise<ArenaResult> {
  await loadSolver();
  if (opts.plugin) for (const o of await loadPluginFile(opts.plugin)) registerOptimizer(o);
  const modes = opts.modes ?? modesOf('OptimizeChannel').filter((m) => m !== 'random' && m !== 'exact');
  const unknown = modes.filter((m) => !modesOf('OptimizeChannel').includes(m));
  if (unknown.length > 0) throw new Error(`arena: unknown channel mode(s) ${unknown.join(', ')}; known: ${modesOf('OptimizeChannel').join(', ')}`);
  const instances = opts.scenarios.flatMap((sc) => opts.seeds.map((seed) => ({ sc, seed })));
  const bar = opts.progress ? new cliProgress.SingleBar({
    format: 'arena [{bar}] {value}/{total} plans | {what}', stream: opts.progress, hideCursor: true,
  }, cliProgress.Presets.shades_classic) : undefined;
  const rows: ArenaRow[] = [];
  const all: Instance[] = [];
  for (const { sc, seed } of instances) all.push(...venueInstances(sc, seed, opts.warmupMs));
  bar?.start(all.length * (modes.length + 1), 0, { what: '' });
  for (const inst of all) {
    const zone = { name: inst.zone, serials: inst.serials };
    const start = scoreCci(inst.model, inst.serials).cci_mw;
    const what = `${inst.scenario}/${inst.zone} seed ${inst.seed}`;
    bar?.update({ what: `${what} exact` });
    let bound: number | null = null;
    let optimal = false;
    let exactMs: number | null = null;
    if (inst.serials.length <= opts.exactMaxAps) {
      const t0 = performance.now();
      const problem = channelProblem({ model: inst.model, zone, configs: inst.configs });
      const ex = solveExact(problem, opts.exactTimeLimit, () => 0.5);
      exactMs = performance.now() - t0;
      if (ex.bound !== undefined) { bound = ex.bound; optimal = ex.optimal; }
    }
    bar?.increment();
    const cells: Record<string, ArenaCell> = {};
    for (const mode of modes) {
      bar?.update({ what: `${what} ${mode}` });
      const t0 = performance.now();
      const plan = runAlgorithm({
        algorithm: 'OptimizeChannel', args: { mode, seed: String(inst.seed) }, allowDefaultMode: false,
        model: inst.model, zone, configs: inst.configs, seed: String(inst.seed),
      }).plan;
      const ms = performance.now() - t0;
      const cci = scoreCci(inst.model, inst.serials, { channel: plan }).cci_mw;
      cells[mode] = { cci_mw: cci, gap: bound === null ? null : provenGap(cci, bound) ?? null, ms };
      bar?.increment();
    }
    rows.push({ scenario: inst.scenario, zone: inst.zone, seed: inst.seed, aps: inst.serials.length, start_mw: start, bound, optimal, exactMs, modes: cells });
  }
  bar?.stop();
  const summarise = (rs: ArenaRow[]): ArenaSummary[] => modes.map((mode) => ({
    mode,
    medianGap: median(rs.flatMap((r) => (r.modes[mode]!.gap === null ? [] : [r.modes[mode]!.gap!]))),
    medianMs: median(rs.map((r) => r.modes[mode]!.ms)) ?? 0,
    vsLeastUsed: rs.length === 0 || !modes.includes('least_used') ? null
      : median(rs.map((r) => (r.modes.least_used!.cci_mw > 0 ? r.modes[mode]!.cci_mw / r.modes.least_used!.cci_mw : 1))),
  }));
  const perScenario = Object.fromEntries(opts.scenarios.map((sc) => [sc, summarise(rows.filter((r) => r.scenario === sc))]));
  const result = { rows, summary: summarise(rows), perScenario };
  if (opts.chart) writeFileSync(opts.chart, arenaChart(result, modes));
  return result;
}

const pct = (g: number | null): string => (g === null ? '–' : !Number.isFinite(g) ? '∞' : `${(g * 100).toFixed(1)}%`);
const mw = (v: number): string => v.toExponential(2);

/** The table: one line per zone and seed (CCI and gap per mode), then the medians per scenario. */
export function arenaTable(r: ArenaResult): string {
  const modes = r.summary.map((s) => s.mode);
  const lines: string[] = [];
  const head = ['scenario/zone', 'seed', 'APs', 'start mW', 'bound mW', ...modes.map((m) => `${m} mW (gap)`)];
  const body = r.rows.map((row) => [
    `${row.scenario}/${row.zone}`, String(row.seed), String(row.aps), mw(row.start_mw),
    row.bound === null ? '–' : `${mw(row.bound)}${row.optimal ? ' opt' : ''}`,
    ...modes.map((m) => `${mw(row.modes[m]!.cci_mw)} (${pct(row.modes[m]!.gap)})`),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  lines.push(fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...body.map(fmt), '');
  const sh = ['scenario', 'mode', 'median gap', 'CCI / least_used', 'median ms'];
  const sb: string[][] = [];
  for (const [sc, sums] of [...Object.entries(r.perScenario), ['all', r.summary] as const]) {
    for (const s of sums) sb.push([sc, s.mode, pct(s.medianGap), s.vsLeastUsed === null ? '–' : s.vsLeastUsed.toFixed(3), s.medianMs.toFixed(0)]);
  }
  const sw = sh.map((h, i) => Math.max(h.length, ...sb.map((b) => b[i]!.length)));
  const f2 = (cells: string[]) => cells.map((c, i) => c.padEnd(sw[i]!)).join('  ');
  lines.push(f2(sh), f2(sw.map((w) => '-'.repeat(w))), ...sb.map(f2));
  return lines.join('\n');
}

const COLOURS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7'];

/** A grouped bar chart: per scenario, each mode's median CCI relative to least_used (log scale). */
export function arenaChart(r: ArenaResult, modes: string[]): string {
  const scenarios = Object.keys(r.perScenario);
  const W = 900;
  const H = 420;
  const left = 70;
  const top = 50;
  const bottom = 70;
  const plotH = H - top - bottom;
  const values = scenarios.flatMap((sc) => r.perScenario[sc]!.map((s) => s.vsLeastUsed ?? 1)).filter((v) => v > 0);
  const lo = Math.min(0.01, ...values);
  const hi = Math.max(1, ...values);
  const y = (v: number) => top + plotH * (1 - (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)));
  const groupW = (W - left - 20) / Math.max(1, scenarios.length);
  const barW = Math.max(4, (groupW - 20) / Math.max(1, modes.length));
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="15">Channel modes: median CCI relative to least_used (log scale, lower is better)</text>`,
  ];
  for (let e = Math.ceil(Math.log10(lo)); e <= Math.floor(Math.log10(hi)); e++) {
    const v = 10 ** e;
    out.push(`<line x1="${left}" x2="${W - 20}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`, `<text x="${left - 6}" y="${y(v) + 4}" text-anchor="end">${v}</text>`);
  }
  scenarios.forEach((sc, gi) => {
    const gx = left + gi * groupW + 10;
    r.perScenario[sc]!.forEach((s, mi) => {
      const v = s.vsLeastUsed ?? 1;
      const x = gx + mi * barW;
      out.push(`<rect x="${x.toFixed(1)}" y="${y(v).toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${(top + plotH - y(v)).toFixed(1)}" fill="${COLOURS[mi % COLOURS.length]}"><title>${sc} ${s.mode}: ${v.toFixed(3)} × least_used, median gap ${pct(s.medianGap)}</title></rect>`);
    });
    out.push(`<text x="${gx + (modes.length * barW) / 2}" y="${top + plotH + 18}" text-anchor="middle">${sc}</text>`);
  });
  modes.forEach((m, i) => {
    const x = left + i * 130;
    out.push(`<rect x="${x}" y="${H - 30}" width="12" height="12" fill="${COLOURS[i % COLOURS.length]}"/>`, `<text x="${x + 16}" y="${H - 20}">${m}</text>`);
  });
  out.push(`<line x1="${left}" x2="${left}" y1="${top}" y2="${top + plotH}" stroke="#333"/>`, '</svg>');
  return `${out.join('\n')}\n`;
}
