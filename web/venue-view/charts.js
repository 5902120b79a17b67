// Charts over time from DuckDB (/api/v1/venue/charts): channel utilisation and clients per AP
// (mean and worst over the zone, or one AP), the zone's score when the RRM keeps one, and RRM
// runs as vertical markers. The twin's time on the x axis.
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

function Chart({ id, title, points, runs, width, valueKey }) {
  const ref = useRef(null);
  useEffect(() => {
    if (!ref.current) return undefined;
    const xs = points.map((p) => p.t);
    const series = valueKey === 'value'
      ? [{}, { label: title, stroke: '#1f6fd1', width: 2 }]
      : [{}, { label: 'mean', stroke: '#1f6fd1', width: 2 }, { label: 'worst', stroke: '#e07b00', width: 1 }];
    const data = valueKey === 'value' ? [xs, points.map((p) => p.value)] : [xs, points.map((p) => p.mean), points.map((p) => p.max)];
    const plot = new uPlot({ width, height: 150, series, plugins: [runMarkers(runs)], axes: [{}, { size: 40 }], legend: { show: true } }, data, ref.current);
    return () => plot.destroy();
  }, [points, runs, width]);
  return html`<div class="chart" id=${id}><h4>${title}</h4><div ref=${ref}></div></div>`;
}

export function Charts({ api, band, zone, serial, refreshKey, twinNow }) {
  const [range, setRange] = useState(3600);
  const [data, setData] = useState(null);
  const [error, setError] = useState('');
  useEffect(() => {
    let live = true;
    const load = () => {
      const q = new URLSearchParams({ band });
      if (serial) q.set('serial', serial);
      else if (zone) q.set('zone', zone);
      const to = Math.floor(twinNow() / 1000);
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
    ${data.score ? html`<${Chart} id="chart-score" title="zone score" points=${data.score} runs=${runs} width=${360} valueKey="value" />` : html`<p class="hint" id="chart-score-missing">The zone's score over time shows here once the RRM keeps run scores.</p>`}
    <${Chart} id="chart-util" title="channel utilisation per AP (%)" points=${data.chanUtil} runs=${runs} width=${360} />
    <${Chart} id="chart-clients" title="clients per AP" points=${data.clients} runs=${runs} width=${360} />
  </div>`;
}
