/**
 * Band of a state radio: from the capabilities phy, the state's own `band`, or the frequency.
 * Upstream only used the capabilities (docs/upstream.md#rrm-data-model) and called every
 * non-2.4 GHz frequency "5G" (docs/rrm.md); here 6 GHz is its own band.
 */
import type { PhyCapabilities } from '../../protocol/capabilities.js';
import { bandOfFrequency, isBand, type Band } from '../../protocol/wifi-channels.js';

/** Loose view of a state radio: any field may be missing in a real document. */
export interface LooseRadio {
  phy?: unknown;
  band?: unknown;
  frequency?: unknown;
  channel?: unknown;
}

export function radioBand(radio: LooseRadio, phys: Record<string, PhyCapabilities> | undefined): Band | undefined {
  const phy = typeof radio.phy === 'string' ? radio.phy : '';
  // fw appends ":<BAND>" to radio.phy when one phy serves several bands
  // (docs/upstream.md#the-state-document).
  const suffix = phy.includes(':') ? phy.slice(phy.lastIndexOf(':') + 1) : '';
  if (isBand(suffix)) return suffix;
  const capBands = (phys?.[phy] ?? phys?.[phy.split(':')[0] ?? ''])?.band;
  if (Array.isArray(capBands) && capBands.length === 1 && isBand(capBands[0])) return capBands[0];
  if (Array.isArray(radio.band) && isBand(radio.band[0])) return radio.band[0];
  if (isBand(radio.band)) return radio.band;
  if (Array.isArray(radio.frequency) && typeof radio.frequency[0] === 'number') {
    const b = bandOfFrequency(radio.frequency[0]);
    if (b) return b;
  }
  if (Array.isArray(capBands) && isBand(capBands[0])) return capBands[0];
  return undefined;
}

/** Band of a configuration radio's `band` string ("5G-lower"/"5G-upper" are 5 GHz). */
export function configBand(band: unknown): Band | undefined {
  if (isBand(band)) return band;
  if (band === '5G-lower' || band === '5G-upper') return '5G';
  return undefined;
}
