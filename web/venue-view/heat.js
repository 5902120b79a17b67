// A heat map answer (/api/v1/venue/heatmap) drawn into an image of one pixel per cell; the map
// scales it over the floor.
import { RAMPS, lut, rgbOf } from './colors.js';

const luts = {};

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
    if (v === null) {
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
    if (v === null) continue;
    n++;
    if (v >= threshold) k++;
  }
  return n === 0 ? 0 : k / n;
}
