// Colours: one per channel of a band (the same on the map, the topology and the heat map), and
// the ramps of the signal heat maps.
import { schemeTableau10, schemeSet3, interpolateTurbo, interpolateViridis } from 'd3-scale-chromatic';
import { rgb } from 'd3-color';

const PALETTE = [...schemeTableau10, ...schemeSet3];

/** Channel -> colour for the channels in use on a band (sorted, so a plan change keeps its order). */
export function channelColours(channels) {
  const sorted = [...new Set(channels)].sort((a, b) => a - b);
  const map = new Map(sorted.map((c, i) => [c, PALETTE[i % PALETTE.length]]));
  return (c) => map.get(c) ?? '#888';
}

export const RAMPS = {
  rssi: { min: -90, max: -30, unit: 'dBm', colour: interpolateTurbo, label: 'best RSSI' },
  sinr: { min: 0, max: 40, unit: 'dB', colour: interpolateViridis, label: 'SINR' },
};

/** A 256-entry RGB lookup table of a ramp (heat maps fill tens of thousands of cells). */
export function lut(ramp) {
  const out = new Uint8ClampedArray(256 * 3);
  for (let i = 0; i < 256; i++) {
    const c = rgb(ramp(i / 255));
    out[i * 3] = c.r;
    out[i * 3 + 1] = c.g;
    out[i * 3 + 2] = c.b;
  }
  return out;
}

export function rgbOf(css) {
  const c = rgb(css);
  return [c.r, c.g, c.b];
}
