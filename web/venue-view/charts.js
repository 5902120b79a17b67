// Charts over time from DuckDB (/api/v1/venue/charts): channel utilisation and clients per AP
// (mean and worst over the zone, or one AP), the zone's CCI score per RRM run (predicted before
// and after, measured after an applied run), and RRM runs as vertical markers. The twin's time
// on the x axis.
import uPlot from 'uplot';
import { html } from './html.js';
import { useEffect, useRef, useState } from 'preact/hooks';

const RANGES = [['15 min', 900], ['1 h', 3600], ['6 h', 21600], ['24 h', 86400]];

/** uPlot plugin: a dashed line per RRM run (solid when applied). */
const runMarkers = (runs) => ({
  hooks: {
    draw: (u) => {
      const { ctx, bbox } = u;
      ctx.save();
      for (const r of runs) {
        const x = u.valToPos(r.t, 'x', true);
        if (x < bbox.left || x > bbox.left + bbox.width) continue;
        ctx.strokeStyle = r.dryRun ? '#999' : '#d0008a';
        ctx.setLineDash(r.dryRun ? [4, 4] : []);
        ctx.beginPath();
        ctx.moveTo(x, bbox.top);
        ctx.lineTo(x, bbox.top + bbox.height);
        ctx.stroke();
      }
      ctx.restore();
    },
  },
});

const SCORE_KINDS = [
  ['before', 'predicted before', '#888', 1],
  ['after', 'predicted after', '#1f6fd1', 2],
  ['measured', 'measured', '#d0008a', 2],
];

/** The score points (one per run and kind) as uPlot columns over their distinct times. */
export function scoreColumns(points) {
  const xs = [...new Set(points.map((p) => p.t))].sort((a, b) => a - b);
  const at = new Map(xs.map((t, i) => [t, i]));
  const cols = SCORE_KINDS.map(() => xs.map(() => null));
  for (const p of points) {
    const k = SCORE_KINDS.findIndex(([kind]) => kind === p.kind);
    // Two runs in one second: the later one's value.
    if (k >= 0) cols[k][at.get(p.t)] = p.cci_mw;
  }
  return [xs, ...cols];
}

function Chart({ id, title, points, runs, width, score }) {
  const ref = useRef(null);
  useEffect(() => {
    if (!ref.current) return undefined;
    const xs = points.map((p) => p.t);
    const series = score
      ? [{}, ...SCORE_KINDS.map(([, label, stroke, w]) => ({ label, stroke, width: w, paths: () => null, points: { show: true, size: 8, fill: stroke } }))]
      : [{}, { label: 'mean', stroke: '#1f6fd1', width: 2 }, { label: 'worst', stroke: '#e07b00', width: 1 }];
    const data = score ? scoreColumns(points) : [xs, points.map((p) => p.mean), points.map((p) => p.max)];
    const plot = new uPlot({ width, height: 150, series, plugins: [runMarkers(runs)], axes: [{}, { size: 48 }], legend: { show: true } }, data, ref.current);
    return () => plot.destroy();
  }, [points, runs, width]);
  const count = (kind) => points.filter((p) => p.kind === kind).length;
  return html`<div class="chart" id=${id} data-points=${points.length}
    data-before=${score ? count('before') : undefined} data-after=${score ? count('after') : undefined} data-measured=${score ? count('measured') : undefined}>
    <h4>${title}</h4><div ref=${ref}></div></div>`;
}

export function Charts({ api, band, zone, serial, refreshKey, twinNow }) {
  const [range, setRange] = useState(3600);
  const [data, setData] = useState(null);
  const [error, setError] = useState('');
  // The reload every 15 s reads the twin's time of the latest render, not of the first one.
  const now = useRef(twinNow);
  now.current = twinNow;
  useEffect(() => {
    let live = true;
    const load = () => {
      const q = new URLSearchParams({ band });
      if (serial) q.set('serial', serial);
      else if (zone) q.set('zone', zone);
      const to = Math.floor(now.current() / 1000);
      q.set('from', String(to - range));
      q.set('to', String(to));
      api.gw('GET', `/venue/charts?${q}`).then((d) => live && setData(d), (e) => live && setError(e.message));
    };
    load();
    const timer = setInterval(load, 15_000);
    return () => { live = false; clearInterval(timer); };
  }, [band, zone, serial, refreshKey, range]);
  if (error) return html`<p class="error">${error}</p>`;
  if (!data) return html`<p class="hint">Loading…</p>`;
  const runs = data.runs;
  return html`<div id="charts">
    <div class="buttons">${RANGES.map(([label, s]) => html`<button class=${s === range ? 'on' : ''} onClick=${() => setRange(s)}>${label}</button>`)}</div>
    <p class="hint">${serial ? `AP ${serial}` : zone ? `zone ${zone}` : 'every AP'}, ${band}; ${runs.length} RRM run(s) marked (magenta: applied, grey: dry run).</p>
    ${data.score && data.score.length > 0
      ? html`<${Chart} id="chart-score" title="zone CCI (mW, lower is better) per RRM run" points=${data.score} runs=${runs} width=${360} score=${true} />`
      : html`<p class="hint" id="chart-score-missing">${zone && !serial ? `No RRM run of zone ${zone} in this range: its CCI score shows here after a dry run or an applied run.` : 'Pick a zone (RRM tab) for its CCI score per run.'}</p>`}
    <${Chart} id="chart-util" title="channel utilisation per AP (%)" points=${data.chanUtil} runs=${runs} width=${360} />
    <${Chart} id="chart-clients" title="clients per AP" points=${data.clients} runs=${runs} width=${360} />
  </div>`;
}
