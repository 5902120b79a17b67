// The venue without positions: APs laid out by force from who hears whom in their latest scans
// (a stronger signal pulls two APs closer), unmanaged BSSIDs as diamonds beside the APs that
// hear them. Same colours and glyphs as the floor plan.
import { forceSimulation, forceLink, forceManyBody, forceCenter, forceCollide } from 'd3-force';
import { changeLabel, drawAp, drawNeighbour } from './glyphs.js';

/** Link length in layout units for a signal: -30 dBm close, -90 dBm far. */
const lengthOf = (signal) => 20 + Math.max(0, Math.min(60, -30 - signal)) * 4;

/** Positions of every node (key: serial, or `u:` + BSSID), computed once per topology answer. */
export function layoutTopology(serials, topo, previous = new Map()) {
  const nodes = serials.map((s) => ({ id: s, ...(previous.get(s) ?? {}) }));
  for (const u of topo.unmanaged) nodes.push({ id: `u:${u.bssid}`, unmanaged: u, ...(previous.get(`u:${u.bssid}`) ?? {}) });
  const ids = new Set(nodes.map((n) => n.id));
  const links = topo.edges.filter((e) => ids.has(e.a) && ids.has(e.b)).map((e) => ({ source: e.a, target: e.b, signal: e.signal }));
  for (const u of topo.unmanaged) {
    for (const h of u.heardBy) if (ids.has(h.serial)) links.push({ source: h.serial, target: `u:${u.bssid}`, signal: h.signal });
  }
  const sim = forceSimulation(nodes)
    .force('link', forceLink(links).id((d) => d.id).distance((l) => lengthOf(l.signal)).strength((l) => 0.2 + Math.max(0, (l.signal + 90) / 60) * 0.8))
    .force('charge', forceManyBody().strength(-120))
    .force('collide', forceCollide(14))
    .force('center', forceCenter(0, 0))
    .stop();
  sim.tick(300);
  return { nodes, links, positions: new Map(nodes.map((n) => [n.id, { x: n.x, y: n.y }])) };
}

export function drawTopology(canvas, s) {
  const ctx = canvas.getContext('2d');
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  const { nodes, links } = s.layout;
  if (nodes.length === 0) return { placed: [], hit: () => undefined };
  let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
  for (const n of nodes) {
    minX = Math.min(minX, n.x); maxX = Math.max(maxX, n.x); minY = Math.min(minY, n.y); maxY = Math.max(maxY, n.y);
  }
  const scale = Math.min((w - 80) / Math.max(1, maxX - minX), (h - 80) / Math.max(1, maxY - minY), 3);
  const X = (x) => w / 2 + (x - (minX + maxX) / 2) * scale;
  const Y = (y) => h / 2 + (y - (minY + maxY) / 2) * scale;
  for (const l of links) {
    ctx.beginPath();
    ctx.moveTo(X(l.source.x), Y(l.source.y));
    ctx.lineTo(X(l.target.x), Y(l.target.y));
    ctx.strokeStyle = '#777';
    ctx.globalAlpha = Math.max(0.08, Math.min(0.8, (l.signal + 95) / 60));
    ctx.lineWidth = 1;
    ctx.stroke();
  }
  ctx.globalAlpha = 1;
  const placed = [];
  for (const n of nodes) {
    const x = X(n.x), y = Y(n.y);
    if (n.unmanaged) {
      drawNeighbour(ctx, x, y, s.colourOf(n.unmanaged.channel));
      continue;
    }
    drawAp(ctx, x, y, s.aps.get(n.id), s.band, s.colourOf, changeLabel(s.diff, n.id, s.band), s.selected === n.id);
    placed.push({ serial: n.id, x, y });
  }
  const unmanaged = nodes.filter((n) => n.unmanaged).map((n) => ({ u: n.unmanaged, x: X(n.x), y: Y(n.y) }));
  return {
    placed,
    hit(px, py) {
      let best, bd = 144;
      for (const a of placed) {
        const d = (a.x - px) ** 2 + (a.y - py) ** 2;
        if (d < bd) { bd = d; best = { serial: a.serial }; }
      }
      for (const e of unmanaged) {
        const d = (e.x - px) ** 2 + (e.y - py) ** 2;
        if (d < bd) { bd = d; best = { unmanaged: e.u }; }
      }
      return best;
    },
  };
}
