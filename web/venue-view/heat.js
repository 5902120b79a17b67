// A heat map answer (/api/v1/venue/heatmap) drawn into an image of one pixel per cell; the map
// scales it over the floor.
import { RAMPS, lut, rgbOf } from './colors.js';

const luts = {};
const NO_VALUE = -32768;

function bytes(b64) {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out.buffer;
}

/** The answer's base64 layers as arrays: rssi and sinr in dBm / dB (NaN: none), channel (0: none), ap (-1: none). */
export function decodeHeatMap(answer) {
  const tenths = (b64) => Float32Array.from(new Int16Array(bytes(b64)), (v) => (v === NO_VALUE ? NaN : v / 10));
  return { ...answer, rssi: tenths(answer.rssi), sinr: tenths(answer.sinr), channel: new Int16Array(bytes(answer.channel)), ap: new Int32Array(bytes(answer.ap)) };
}

/** metric: 'rssi' | 'sinr' | 'channel'; colourOf: channel -> css colour (for 'channel'). */
export function heatImage(map, metric, colourOf) {
  const canvas = document.createElement('canvas');
  canvas.width = map.cols;
  canvas.height = map.rows;
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(map.cols, map.rows);
  const d = img.data;
  const ramp = RAMPS[metric];
  const table = ramp ? (luts[metric] ??= lut(ramp.colour)) : undefined;
  const chan = new Map();
  const values = metric === 'channel' ? map.channel : map[metric];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const o = i * 4;
    if (Number.isNaN(v) || (metric === 'channel' && v === 0)) {
      d[o + 3] = 0;
      continue;
    }
    let r, g, b;
    if (table) {
      const k = Math.max(0, Math.min(255, Math.round(((v - ramp.min) / (ramp.max - ramp.min)) * 255)));
      r = table[k * 3]; g = table[k * 3 + 1]; b = table[k * 3 + 2];
    } else {
      let c = chan.get(v);
      if (!c) chan.set(v, (c = rgbOf(colourOf(v))));
      [r, g, b] = c;
    }
    d[o] = r; d[o + 1] = g; d[o + 2] = b; d[o + 3] = 170;
  }
  ctx.putImageData(img, 0, 0);
  return canvas;
}

/** Share of covered cells at or above a value (shown beside the legend). */
export function shareAbove(values, threshold) {
  let n = 0, k = 0;
  for (const v of values) {
    if (Number.isNaN(v)) continue;
    n++;
    if (v >= threshold) k++;
  }
  return n === 0 ? 0 : k / n;
}
