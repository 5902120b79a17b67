/**
 * Persistence of the RRM service's own state (migration 3): the topology and the layered
 * configuration, one JSON document each, and the run history. Both documents are read on every
 * request and by the scheduler/collector, so they are mirrored in memory and written through:
 * DuckDB first, then memory, so a failed write leaves both unchanged (as src/store/devices-repo.ts).
 */
import type { Store } from '../store/duckdb.js';
import { sanitizeLayers } from './config/layered.js';
import { emptyLayeredConfig, type LayeredConfig } from './schemas/layered-config.js';
import type { Topology } from './schemas/topology.js';
import type { PlanScore, ScorePair } from './score/types.js';

export interface RunRecord {
  id: string;
  zone: string;
  algorithm: string;
  mode: string;
  seed: string;
  args: string;
  dryRun: boolean;
  /** 'api' or 'scheduler'. */
  source: string;
  plan: unknown;
  /** Serials a configure command was sent (or deferred) for. */
  pushed: string[];
  createdMs: number;
  /** The plan's predicted score (before / after) on the model it was computed from. */
  score: ScorePair | null;
  /** True when the plan went into the layers and to the APs (not a dry run, something to change). */
  applied: boolean;
  /** The zone's members at the time of the run (what `measured` is computed over). */
  serials: string[];
  /** The zone measured from the first scans and states newer than the apply; null until then. */
  measured: PlanScore | null;
  measuredMs: number | null;
}

const json = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));
const parsed = <T>(v: unknown): T | null => (v === null || v === undefined ? null : JSON.parse(String(v)) as T);

type Listener = () => void;
type Changed = { topology?: Topology; layers?: LayeredConfig };

export class RrmStore {
  private topo: Topology = {};
  /** True once a topology was stored; until then `topology()` is the fallback's. */
  private topoSet = false;
  private layered: LayeredConfig = emptyLayeredConfig();
  private readonly listeners = new Set<Listener>();
  /** Writes one at a time, so two concurrent changes never lose one (read-modify-write). */
  private chain: Promise<unknown> = Promise.resolve();

  private constructor(private readonly store: Store, private readonly now: () => number, private readonly fallback?: () => Topology) {}

  /**
   * `fallback`: the zones to use while no topology was ever set (setTopology), e.g. the venues of
   * the device records (config/topology.ts zonesFromVenues), so a venue is a zone without setup.
   */
  static async load(store: Store, now: () => number, fallback?: () => Topology): Promise<RrmStore> {
    const repo = new RrmStore(store, now, fallback);
    for (const row of await store.query<{ name: string; document: string }>('SELECT name, document FROM rrm_documents')) {
      if (row.name === 'topology') { repo.topo = JSON.parse(row.document) as Topology; repo.topoSet = true; }
      if (row.name === 'layers') repo.layered = { ...emptyLayeredConfig(), ...(JSON.parse(row.document) as Partial<LayeredConfig>) };
    }
    repo.layered = sanitizeLayers(repo.layered, repo.topology());
    return repo;
  }

  topology(): Topology {
    return this.topoSet || !this.fallback ? this.topo : this.fallback();
  }

  /**
   * The topology as set (setTopology), without the fallback zones: what the collector sends
   * commands to. APs of a venue nobody put in a zone are not asked for scans (a simulated
   * venue scans on its own), so a command of the user's is not refused because RRM is busy.
   */
  storedTopology(): Topology {
    return this.topo;
  }

  layers(): LayeredConfig {
    return this.layered;
  }

  /** Called after every change (the scheduler re-reads the schedules). */
  onChange(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /**
   * Runs `change` on the current documents and stores what it returns, serialised with every
   * other change. `change` may throw (validation): nothing is stored then.
   */
  update(change: (topology: Topology, layers: LayeredConfig) => Changed | Promise<Changed>): Promise<void> {
    const work = async () => {
      const next = await change(this.topology(), this.layered);
      const topology = next.topology ?? this.topology();
      const layers = sanitizeLayers(next.layers ?? this.layered, topology);
      const at = Math.floor(this.now() / 1000);
      await this.store.transaction(async (tx) => {
        const put = (name: string, doc: unknown) => tx.run(
          'INSERT INTO rrm_documents VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE SET document = excluded.document, modified = excluded.modified',
          [name, JSON.stringify(doc), at],
        );
        if (next.topology) await put('topology', topology);
        await put('layers', layers);
      });
      if (next.topology) { this.topo = topology; this.topoSet = true; }
      this.layered = layers;
      for (const fn of this.listeners) fn();
    };
    const p = this.chain.then(work, work);
    this.chain = p.catch(() => undefined);
    return p;
  }

  async recordRun(r: RunRecord): Promise<void> {
    await this.store.run(
      `INSERT INTO rrm_runs (id, zone, algorithm, mode, seed, args, dry_run, source, plan, pushed, created_ms, score, applied, serials, measured, measured_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`, [
        r.id, r.zone, r.algorithm, r.mode, r.seed, r.args, r.dryRun, r.source, JSON.stringify(r.plan), JSON.stringify(r.pushed), r.createdMs,
        json(r.score), r.applied, JSON.stringify(r.serials), json(r.measured), r.measuredMs,
      ],
    );
  }

  /** Latest runs, newest first; of one zone when `zone` is given. */
  async runs(limit = 50, zone?: string): Promise<RunRecord[]> {
    const rows = zone === undefined
      ? await this.store.query('SELECT * FROM rrm_runs ORDER BY created_ms DESC, id LIMIT $1', [limit])
      : await this.store.query('SELECT * FROM rrm_runs WHERE zone = $2 ORDER BY created_ms DESC, id LIMIT $1', [limit, zone]);
    return rows.map(toRecord);
  }

  /**
   * A zone's runs created in [fromMs, toMs] or measured in it, oldest first (at most `limit`,
   * the newest kept).
   */
  async runsBetween(zone: string, fromMs: number, toMs: number, limit = 1000): Promise<RunRecord[]> {
    const rows = await this.store.query(
      `SELECT * FROM (SELECT * FROM rrm_runs WHERE zone = $1 AND (created_ms BETWEEN $2 AND $3 OR measured_ms BETWEEN $2 AND $3)
       ORDER BY created_ms DESC, id LIMIT $4) ORDER BY created_ms, id`, [zone, fromMs, toMs, limit],
    );
    return rows.map(toRecord);
  }

  /** Applied runs still waiting for their measured effect, oldest first. */
  async awaitingMeasurement(limit = 20): Promise<RunRecord[]> {
    const rows = await this.store.query(
      'SELECT * FROM rrm_runs WHERE applied AND measured IS NULL ORDER BY created_ms, id LIMIT $1', [limit],
    );
    return rows.map(toRecord);
  }

  async setMeasured(id: string, measured: PlanScore, at: number): Promise<void> {
    await this.store.run('UPDATE rrm_runs SET measured = $2, measured_ms = $3 WHERE id = $1', [id, JSON.stringify(measured), at]);
  }
}

function toRecord(r: Record<string, unknown>): RunRecord {
  return {
    id: String(r.id), zone: String(r.zone), algorithm: String(r.algorithm), mode: String(r.mode), seed: String(r.seed),
    args: String(r.args), dryRun: Boolean(r.dry_run), source: String(r.source), plan: JSON.parse(String(r.plan)),
    pushed: JSON.parse(String(r.pushed)) as string[], createdMs: Number(r.created_ms),
    score: parsed<ScorePair>(r.score), applied: Boolean(r.applied), serials: parsed<string[]>(r.serials) ?? [],
    measured: parsed<PlanScore>(r.measured), measuredMs: r.measured_ms === null || r.measured_ms === undefined ? null : Number(r.measured_ms),
  };
}
