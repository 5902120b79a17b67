/**
 * The channel objective (docs/rrm.md "The objective"): co-channel interference (CCI) of a plan.
 * Over ordered pairs (a, b) of managed radios of the zone whose spectrum overlaps (bonded blocks
 * sharing a 20 MHz channel; on 2.4 GHz, channels less than 5 apart), the power in mW at which a
 * hears b in its latest scan, counted when above −82 dBm; plus every unmanaged BSSID a hears
 * above −82 dBm on overlapping spectrum; summed over the zone's radios, all bands.
 *
 * Pure. `cciInstance` reads the model once (the radios, who hears whom at which dBm); the score
 * of any channel / power plan is then arithmetic on that instance, so optimizers and the arena
 * evaluate thousands of plans without touching the model again. A power plan shifts what a
 * hears of b dB for dB with b's power change (the threshold applies after the shift).
 */
import { BANDS, blockOf, type Band, type ChannelWidth } from '../../protocol/wifi-channels.js';
import { zoneView, type ZoneView } from '../model/view.js';
import type { RrmModel } from '../model/types.js';
import type { PlanScore } from './types.js';

/** The CCA level the objective starts at, dBm. */
export const CCI_THRESHOLD_DBM = -82;

/** serial -> band -> channel or dBm (the optimizers' plan shape). */
export type BandPlan = Record<string, Record<string, number>>;

/** A managed radio heard by another, with the strongest of its BSSIDs. */
export interface HeardRadio {
  /** Index of the transmitting radio in `CciInstance.radios`. */
  radio: number;
  dbm: number;
}

/** An unmanaged BSSID heard by a radio. */
export interface HeardUnmanaged {
  bssid: string;
  covered: readonly number[];
  dbm: number;
}

export interface CciRadio {
  serial: string;
  band: Band;
  /** The primary the radio runs, normalised to the first channel of its block. */
  channel: number;
  width: ChannelWidth;
  /** The tx power the radio reports (dBm), when it does. */
  txPower: number | undefined;
  /** Managed radios of the zone this radio hears (same band, not itself). */
  managed: HeardRadio[];
  unmanaged: HeardUnmanaged[];
}

export interface CciInstance {
  radios: CciRadio[];
  /** `${serial}/${band}` -> index in `radios`. */
  index: ReadonlyMap<string, number>;
}

/** The 20 MHz channels a radio occupies on `channel` at `width` (2.4 GHz: its 20 MHz channel). */
export function coveredChannels(band: Band, channel: number, width: ChannelWidth): readonly number[] {
  return blockOf(band, channel, band === '2G' ? 20 : width)?.channels ?? [channel];
}

/** The first channel of the block a primary lies in (what the fw runs). */
export function normalisedPrimary(band: Band, channel: number, width: ChannelWidth): number {
  return coveredChannels(band, channel, width)[0] ?? channel;
}

/**
 * Whether two occupants' spectrum overlaps: they share a 20 MHz channel or, on 2.4 GHz, any of
 * their channels are less than 5 apart.
 */
export function spectrumOverlaps(band: Band, a: readonly number[], b: readonly number[]): boolean {
  for (const x of a) {
    for (const y of b) {
      if (band === '2G' ? Math.abs(x - y) < 5 : x === y) return true;
    }
  }
  return false;
}

export const dbmToMw = (dbm: number): number => 10 ** (dbm / 10);

/**
 * The instance of a zone: one radio per (serial, band) with a channel in the latest state (the
 * first such radio when an AP has two in one band), and what each hears in its latest scan.
 */
export function cciInstance(model: RrmModel, serials: readonly string[]): CciInstance {
  return cciInstanceOfView(zoneView(model, serials));
}

/** The instance of a zone view already built (the optimizers read the view too). */
export function cciInstanceOfView(view: ZoneView): CciInstance {
  const { aps } = view;
  const radios: CciRadio[] = [];
  const index = new Map<string, number>();
  // per band: AP index -> radio index (-1: none), so neighbours resolve without string keys
  const radioOf = new Map<Band, Int32Array>(BANDS.map((b) => [b, new Int32Array(aps.length).fill(-1)]));
  aps.forEach((ap, a) => {
    for (const r of ap.radios) {
      const byAp = radioOf.get(r.band)!;
      if (byAp[a]! >= 0) continue;
      byAp[a] = radios.length;
      index.set(`${ap.serial}/${r.band}`, radios.length);
      radios.push({
        serial: ap.serial, band: r.band, channel: normalisedPrimary(r.band, r.channel, r.width), width: r.width,
        txPower: r.txPower, managed: [], unmanaged: [],
      });
    }
  });
  aps.forEach((ap, a) => {
    for (const band of BANDS) {
      const byAp = radioOf.get(band)!;
      const me = byAp[a]!;
      if (me < 0) continue;
      const loudest = new Map<number, number>();
      for (const n of ap.byBand[band] ?? []) {
        if (n.peer === a) continue;
        const peer = n.peer >= 0 ? byAp[n.peer]! : -1;
        if (peer < 0) {
          radios[me]!.unmanaged.push({ bssid: n.bssid, covered: n.covered, dbm: n.signal });
          continue;
        }
        const prev = loudest.get(peer);
        if (prev === undefined || n.signal > prev) loudest.set(peer, n.signal);
      }
      radios[me]!.managed = [...loudest].sort((x, y) => x[0] - y[0]).map(([radio, dbm]) => ({ radio, dbm }));
    }
  });
  return { radios, index };
}

export interface PlanValues {
  /** New channels (serial -> band -> primary); radios not named keep theirs. */
  channel?: BandPlan;
  /** New tx powers (serial -> band -> dBm); radios not named keep theirs. */
  txPower?: BandPlan;
}

/** Per radio: the channel block and the power change a plan gives it. */
function slotsOf(inst: CciInstance, plan: PlanValues): { covered: (readonly number[])[]; deltaDb: number[]; churn: number } {
  let churn = 0;
  const covered: (readonly number[])[] = [];
  const deltaDb: number[] = [];
  for (const r of inst.radios) {
    const ch = plan.channel?.[r.serial]?.[r.band];
    const channel = ch === undefined ? r.channel : normalisedPrimary(r.band, ch, r.width);
    const p = plan.txPower?.[r.serial]?.[r.band];
    const delta = p === undefined || r.txPower === undefined ? 0 : p - r.txPower;
    if (channel !== r.channel || (p !== undefined && p !== r.txPower)) churn++;
    covered.push(coveredChannels(r.band, channel, r.width));
    deltaDb.push(delta);
  }
  return { covered, deltaDb, churn };
}

/** Per radio, the CCI it hears under `plan` (mW), and the number of managed conflict edges. */
export function radioCci(inst: CciInstance, plan: PlanValues = {}): { perRadio: number[]; conflictEdges: number; churn: number } {
  const { covered, deltaDb, churn } = slotsOf(inst, plan);
  let conflictEdges = 0;
  const perRadio = inst.radios.map((r, a) => {
    let sum = 0;
    for (const h of r.managed) {
      const dbm = h.dbm + deltaDb[h.radio]!;
      if (dbm <= CCI_THRESHOLD_DBM || !spectrumOverlaps(r.band, covered[a]!, covered[h.radio]!)) continue;
      sum += dbmToMw(dbm);
      conflictEdges++;
    }
    for (const u of r.unmanaged) {
      if (u.dbm > CCI_THRESHOLD_DBM && spectrumOverlaps(r.band, covered[a]!, u.covered)) sum += dbmToMw(u.dbm);
    }
    return sum;
  });
  return { perRadio, conflictEdges, churn };
}

/** The channel figures of a plan on an instance (coverage figures are power.ts's). */
export function scoreInstance(inst: CciInstance, plan: PlanValues = {}): PlanScore {
  const { perRadio, conflictEdges, churn } = radioCci(inst, plan);
  let cci = 0;
  let worst = 0;
  for (const v of perRadio) { cci += v; if (v > worst) worst = v; }
  return { cci_mw: cci, conflictEdges, worstRadioCci_mw: worst, churn };
}

/** The channel figures of a plan on a zone of the model. */
export function scoreCci(model: RrmModel, serials: readonly string[], plan: PlanValues = {}): PlanScore {
  return scoreInstance(cciInstance(model, serials), plan);
}
