// The venue view: the floor plan (or the scan topology) with heat maps, the RRM panel, charts
// and the AP list, kept live by the websocket. State lives in <App>; canvases are drawn by
// map.js / topology.js whenever it changes.
import { render } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { html } from './html.js';
import { client, forgetToken, saveToken, takeToken } from './api.js';
import { connectLive, liveStats } from './live.js';
import { channelColours, RAMPS } from './colors.js';
import { decodeHeatMap, heatImage, shareAbove } from './heat.js';
import { drawFloor } from './map.js';
import { drawTopology, layoutTopology } from './topology.js';
import { ApDetails, ApList, Tooltip, time } from './panels.js';
import { RrmPanel } from './rrm-panel.js';
import { Charts } from './charts.js';

// For tests and measurements: where each AP was drawn, how far behind the live feed is.
const debug = (window.venueView = { liveStats, placed: [], firstPaintMs: undefined, heatMs: undefined });

function Login({ onToken, error }) {
  const [t, setT] = useState('');
  return html`<form class="login" onSubmit=${(e) => { e.preventDefault(); saveToken(t); onToken(t); }}>
    <h2>airtwin venue view</h2><p>Paste the token the server printed at start (or open the URL it printed).</p>
    ${error && html`<p class="error">${error}</p>`}
    <input id="token" value=${t} onInput=${(e) => setT(e.target.value)} placeholder="token" /> <button>Open</button></form>`;
}

function useLive(api, onMessage, enabled) {
  const [status, setStatus] = useState('connecting');
  const handler = useRef(onMessage);
  handler.current = onMessage;
  useEffect(() => (enabled ? connectLive(api.liveUrl(), (m) => handler.current(m), setStatus) : undefined), [enabled]);
  return status;
}

function Legend({ band, colourOf, channels, layer, heat }) {
  const ramp = RAMPS[layer];
  return html`<div class="legend">
    ${channels.map((c) => html`<span class="chip"><i style=${`background:${colourOf(c)}`}></i>${c}</span>`)}
    <span class="hint">${band} channels · ring: tx power · ◇ unmanaged</span>
    ${ramp && heat && html`<span class="ramp" id="heat-legend">${ramp.label} ${ramp.min}…${ramp.max} ${ramp.unit}; ${Math.round(100 * shareAbove(heat.map[layer], layer === 'rssi' ? -67 : 20))} % of the floor ≥ ${layer === 'rssi' ? '-67 dBm' : '20 dB'}</span>`}
  </div>`;
}

function Venue({ api, snapshot }) {
  const [aps, setAps] = useState(() => new Map(snapshot.aps.map((a) => [a.serial, a])));
  const [clients, setClients] = useState(null);
  const [twinNow, setTwinNow] = useState(snapshot.now);
  const [band, setBand] = useState('5G');
  const [floor, setFloor] = useState(0);
  const [view, setView] = useState(snapshot.mode === 'floorplan' ? 'map' : 'topology');
  const [layer, setLayer] = useState('none');
  const [heatFor, setHeatFor] = useState('current');
  const [heat, setHeat] = useState(null);
  const [plan, setPlan] = useState(null);
  const [rrmZone, setRrmZone] = useState('');
  const [selected, setSelected] = useState(undefined);
  const [hover, setHover] = useState(null);
  const [tab, setTab] = useState('rrm');
  const [topo, setTopo] = useState(null);
  const [radioKey, setRadioKey] = useState(0);
  const canvas = useRef(null);
  const drawn = useRef(null);

  const status = useLive(api, (m) => {
    if (m.type === 'aps') {
      setTwinNow(m.at);
      setAps((prev) => {
        const next = new Map(prev);
        let radiosMoved = false;
        for (const a of m.aps) {
          const old = prev.get(a.serial);
          if (!old || JSON.stringify(old.radios.map((r) => [r.channel, r.txPower])) !== JSON.stringify(a.radios.map((r) => [r.channel, r.txPower]))) radiosMoved = true;
          next.set(a.serial, a);
        }
        if (radiosMoved) setRadioKey((k) => k + 1);
        return next;
      });
    } else if (m.type === 'clients') {
      setTwinNow(m.at);
      setClients(m);
    }
  }, true);

  const bands = useMemo(() => [...new Set([...aps.values()].flatMap((a) => a.radios.map((r) => r.band)))].sort(), [aps]);
  const channels = useMemo(() => {
    const list = [...aps.values()].flatMap((a) => a.radios.filter((r) => r.band === band).map((r) => r.channel));
    for (const n of snapshot.plan?.neighbours ?? []) if (n.band === band) list.push(n.channel);
    for (const bands of plan?.proposal.channels ? Object.values(plan.proposal.channels) : []) if (bands[band] !== undefined) list.push(bands[band]);
    return [...new Set(list)].sort((a, b) => a - b);
  }, [aps, band, plan]);
  const colourOf = useMemo(() => channelColours(channels), [channels]);

  // Heat map: fetched when the layer, band, floor, plan or the radios change.
  useEffect(() => {
    if (layer === 'none' || view !== 'map') { setHeat(null); return; }
    const began = performance.now();
    const body = { floor, band, ...(heatFor === 'proposed' && plan ? { plan: plan.proposal } : {}) };
    let live = true;
    api.gw('POST', '/venue/heatmap', body).then((answer) => {
      if (!live) return;
      const map = decodeHeatMap(answer);
      setHeat({ map, cols: map.cols, rows: map.rows, step: map.step });
      debug.heatMs = performance.now() - began;
      debug.heatComputeMs = answer.computeMs;
    }).catch(() => live && setHeat(null));
    return () => { live = false; };
  }, [layer, band, floor, heatFor, plan, radioKey, view]);
  const heatDrawn = useMemo(() => (heat && layer !== 'none' ? { ...heat, image: heatImage(heat.map, layer, colourOf) } : null), [heat, layer, colourOf]);

  // Topology: laid out from the scans, refreshed every 30 s.
  useEffect(() => {
    if (view !== 'topology') return undefined;
    let live = true;
    const load = () => api.gw('GET', '/venue/topology').then((t) => live && setTopo((prev) => ({ t, layout: layoutTopology([...aps.keys()], t, prev?.layout.positions) })));
    void load();
    const timer = setInterval(load, 30_000);
    return () => { live = false; clearInterval(timer); };
  }, [view]);

  useEffect(() => {
    const c = canvas.current;
    if (!c) return;
    const frame = requestAnimationFrame(() => {
      const s = { aps, band, colourOf, diff: plan?.diff, selected };
      drawn.current = view === 'map' && snapshot.plan
        ? drawFloor(c, { ...s, plan: snapshot.plan, floor, clients, heat: heatDrawn })
        : topo ? drawTopology(c, { ...s, layout: topo.layout }) : null;
      debug.placed = drawn.current?.placed ?? [];
      if (debug.firstPaintMs === undefined && debug.placed.length > 0) debug.firstPaintMs = performance.now();
    });
    return () => cancelAnimationFrame(frame);
  });

  const onMove = (e) => {
    const r = e.currentTarget.getBoundingClientRect();
    const at = { x: e.clientX - r.left, y: e.clientY - r.top };
    const hit = drawn.current?.hit(at.x, at.y);
    setHover(hit ? { ...hit, at } : null);
  };
  const onClick = () => {
    if (hover?.serial) { setSelected(hover.serial); setTab('ap'); }
  };
  const ap = selected ? aps.get(selected) : undefined;
  // The charts follow the zone of the shown plan, else the one picked in the RRM panel.
  const zone = plan?.zone ?? (rrmZone || undefined);

  return html`<div class="venue">
    <header>
      <h1 id="venue-name">${snapshot.name}</h1>
      <span class=${`status ${status}`} id="live-status">${status}</span>
      <span class="clock" id="twin-time">${time(twinNow)}</span>
      <span class="group">${['2G', '5G', '6G'].map((b) => html`<button class=${b === band ? 'on' : ''} disabled=${!bands.includes(b)} data-band=${b} onClick=${() => setBand(b)}>${b === '2G' ? '2.4' : b.slice(0, 1)} GHz</button>`)}</span>
      <span class="group">
        ${snapshot.plan && html`<button id="view-map" class=${view === 'map' ? 'on' : ''} onClick=${() => setView('map')}>floor plan</button>`}
        <button id="view-topology" class=${view === 'topology' ? 'on' : ''} onClick=${() => setView('topology')}>topology</button>
      </span>
      ${view === 'map' && html`<span class="group">
        <select id="layer" value=${layer} onChange=${(e) => setLayer(e.target.value)}>
          <option value="none">no heat map</option><option value="rssi">best RSSI</option><option value="sinr">SINR</option><option value="channel">serving channel</option></select>
        ${plan && layer !== 'none' && html`<select id="heat-for" value=${heatFor} onChange=${(e) => setHeatFor(e.target.value)}><option value="current">current plan</option><option value="proposed">proposed plan</option></select>`}
        ${snapshot.plan.floors.length > 1 && html`<select id="floor" value=${floor} onChange=${(e) => setFloor(Number(e.target.value))}>${snapshot.plan.floors.map((_, i) => html`<option value=${i}>floor ${i}</option>`)}</select>`}
      </span>`}
    </header>
    <main>
      <div class="stage">
        <canvas id="venue-canvas" ref=${canvas} onMouseMove=${onMove} onMouseLeave=${() => setHover(null)} onClick=${onClick}></canvas>
        <${Tooltip} hover=${hover} aps=${aps} at=${hover?.at} />
        <${Legend} band=${band} colourOf=${colourOf} channels=${channels} layer=${layer} heat=${heat} />
      </div>
      <aside>
        <nav>${[['rrm', 'RRM'], ['charts', 'Charts'], ['aps', `APs (${aps.size})`], ['ap', 'AP']].map(([k, label]) => html`<button id=${`tab-${k}`} class=${tab === k ? 'on' : ''} onClick=${() => setTab(k)}>${label}</button>`)}</nav>
        <section>
          ${tab === 'rrm' && html`<${RrmPanel} api=${api} aps=${aps} plan=${plan} onPlan=${setPlan} zone=${rrmZone} setZone=${setRrmZone} onApplied=${() => undefined} />`}
          ${tab === 'charts' && html`<${Charts} api=${api} band=${band} zone=${zone} serial=${selected} twinNow=${() => twinNow} refreshKey=${plan} />`}
          ${tab === 'aps' && html`<${ApList} aps=${aps} band=${band} selected=${selected} onSelect=${(s) => { setSelected(s); setTab('ap'); }} />`}
          ${tab === 'ap' && html`<${ApDetails} ap=${ap} api=${api} />`}
        </section>
      </aside>
    </main>
  </div>`;
}

function App() {
  const [token, setToken] = useState(takeToken);
  const [snapshot, setSnapshot] = useState(null);
  const [error, setError] = useState('');
  const api = useMemo(() => client(token), [token]);
  useEffect(() => {
    if (!token) return;
    api.gw('GET', '/venue').then((s) => {
      api.setRrm(s.rrm.port, s.rrm.tls);
      setSnapshot(s);
    }, (e) => {
      if (e.status === 401 || e.status === 403) { forgetToken(); setToken(''); }
      setError(e.message);
    });
  }, [token]);
  if (!token) return html`<${Login} onToken=${setToken} error=${error} />`;
  if (!snapshot) return html`<p class="loading">${error || 'Loading the venue…'}</p>`;
  return html`<${Venue} api=${api} snapshot=${snapshot} />`;
}

render(html`<${App} />`, document.getElementById('app'));
