// The floor plan on a canvas: walls, an optional heat map, stations with a line to their AP,
// neighbours and APs. Returns where things were drawn, for hovering and tests.
import { BAND_COLOURS, changeLabel, drawAp, drawNeighbour } from './glyphs.js';

const MARGIN = 24;

export function drawFloor(canvas, s) {
  const ctx = canvas.getContext('2d');
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  const f = s.plan.floors[s.floor];
  const scale = Math.min((w - 2 * MARGIN) / f.width, (h - 2 * MARGIN) / f.depth);
  const ox = (w - f.width * scale) / 2, oy = (h - f.depth * scale) / 2;
  const X = (x) => ox + x * scale, Y = (y) => oy + y * scale;

  ctx.fillStyle = '#fafaf7';
  ctx.fillRect(X(0), Y(0), f.width * scale, f.depth * scale);
  if (s.heat) {
    ctx.imageSmoothingEnabled = true;
    ctx.drawImage(s.heat.image, X(0), Y(0), s.heat.cols * s.heat.step * scale, s.heat.rows * s.heat.step * scale);
  }
  ctx.strokeStyle = '#222';
  ctx.lineWidth = 1.5;
  ctx.strokeRect(X(0), Y(0), f.width * scale, f.depth * scale);
  for (const wall of f.walls) {
    ctx.beginPath();
    ctx.moveTo(X(wall.x1), Y(wall.y1));
    ctx.lineTo(X(wall.x2), Y(wall.y2));
    ctx.lineWidth = 1 + Math.min(5, wall.db / 4);
    ctx.strokeStyle = '#444';
    ctx.stroke();
  }
  // Scale bar: 10 m.
  ctx.fillStyle = '#444';
  ctx.fillRect(X(0), Y(f.depth) + 8, 10 * scale, 2);
  ctx.font = '10px system-ui, sans-serif';
  ctx.fillText('10 m', X(0) + 10 * scale + 4, Y(f.depth) + 12);

  const c = s.clients;
  if (c) {
    for (let i = 0; i < c.id.length; i++) {
      if (c.floor[i] !== s.floor) continue;
      const x = X(c.x[i]), y = Y(c.y[i]);
      const onBand = c.band[i] === s.band;
      const ap = c.ap[i] >= 0 ? s.plan.aps[c.ap[i]] : undefined;
      if (ap && ap.floor === s.floor && onBand) {
        ctx.beginPath();
        ctx.moveTo(x, y);
        ctx.lineTo(X(ap.x), Y(ap.y));
        ctx.strokeStyle = BAND_COLOURS[c.band[i]] ?? '#999';
        ctx.globalAlpha = 0.25;
        ctx.lineWidth = 1;
        ctx.stroke();
      }
      ctx.globalAlpha = onBand ? 0.9 : 0.3;
      ctx.fillStyle = c.ap[i] >= 0 ? BAND_COLOURS[c.band[i]] ?? '#999' : '#999';
      ctx.fillRect(x - 1.5, y - 1.5, 3, 3);
      ctx.globalAlpha = 1;
    }
  }
  for (const n of s.plan.neighbours) {
    if (n.floor !== s.floor || n.band !== s.band) continue;
    drawNeighbour(ctx, X(n.x), Y(n.y), s.colourOf(n.channel));
  }
  const placed = [];
  for (const p of s.plan.aps) {
    if (p.floor !== s.floor) continue;
    const x = X(p.x), y = Y(p.y);
    drawAp(ctx, x, y, s.aps.get(p.serial), s.band, s.colourOf, changeLabel(s.diff, p.serial, s.band), s.selected === p.serial);
    placed.push({ serial: p.serial, x, y });
  }
  const neighbours = s.plan.neighbours.filter((n) => n.floor === s.floor && n.band === s.band).map((n) => ({ n, x: X(n.x), y: Y(n.y) }));
  return {
    placed,
    /** Nearest AP (or neighbour) within 12 px of a canvas point. */
    hit(px, py) {
      let best, bd = 144;
      for (const a of placed) {
        const d = (a.x - px) ** 2 + (a.y - py) ** 2;
        if (d < bd) { bd = d; best = { serial: a.serial }; }
      }
      for (const e of neighbours) {
        const d = (e.x - px) ** 2 + (e.y - py) ** 2;
        if (d < bd) { bd = d; best = { neighbour: e.n }; }
      }
      return best;
    },
    /** Metres at a canvas point (for the heat map's value under the pointer). */
    toMetres: (px, py) => ({ x: (px - ox) / scale, y: (py - oy) / scale }),
  };
}
