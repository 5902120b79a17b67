// The RRM panel: pick a zone and a mode, run a dry run, see the plan on the map (changed APs,
// old -> new) with the score before and after when the RRM gives one; Apply, then watch the
// APs take the plan as their next states arrive.
import { html } from './html.js';
import { useEffect, useState } from 'preact/hooks';
import { radioOf } from './glyphs.js';

/** Modes of the built-in algorithms; an /algorithms entry that lists its own `modes` adds to them. */
const KNOWN_MODES = {
  OptimizeChannel: ['least_used', 'unmanaged_aware', 'random'],
  OptimizeTxPower: ['measure_ap_ap', 'measure_ap_client', 'location_optimal', 'random'],
};

/** serial -> band -> { channel?: [old, new], txPower?: [old, new] } for the radios a plan changes. */
export function planDiff(answer, aps) {
  const field = answer.channelMap ? 'channel' : 'txPower';
  const map = answer.channelMap ?? answer.txPowerMap ?? answer.data ?? {};
  const diff = new Map();
  let unchanged = 0;
  for (const [serial, bands] of Object.entries(map)) {
    for (const [band, value] of Object.entries(bands)) {
      const old = radioOf(aps.get(serial), band)?.[field];
      if (old === value) { unchanged++; continue; }
      const entry = diff.get(serial) ?? {};
      entry[band] = { ...entry[band], [field]: [old, value] };
      diff.set(serial, entry);
    }
  }
  const proposal = field === 'channel' ? { channels: map } : { txPowers: map };
  return { diff, unchanged, proposal, field };
}

/** How many planned changes the APs' latest states show. */
export function converged(diff, aps) {
  let done = 0, total = 0;
  for (const [serial, bands] of diff) {
    for (const [band, c] of Object.entries(bands)) {
      for (const field of ['channel', 'txPower']) {
        if (!c[field]) continue;
        total++;
        if (radioOf(aps.get(serial), band)?.[field] === c[field][1]) done++;
      }
    }
  }
  return { done, total };
}

function Score({ score }) {
  if (!score) return null;
  const show = (v) => (typeof v === 'number' ? v.toFixed(3) : typeof v === 'object' && v ? Object.entries(v).map(([k, x]) => `${k} ${typeof x === 'number' ? x.toFixed(3) : x}`).join(', ') : String(v));
  return html`<p id="rrm-score" class="score">score before <b>${show(score.before)}</b> → after <b>${show(score.after)}</b></p>`;
}

export function RrmPanel({ api, aps, plan, onPlan, onApplied }) {
  const [zones, setZones] = useState(null);
  const [zone, setZone] = useState('');
  const [algorithms, setAlgorithms] = useState([]);
  const [algorithm, setAlgorithm] = useState('OptimizeChannel');
  const [mode, setMode] = useState('least_used');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [applied, setApplied] = useState(false);

  const loadZones = async () => {
    const topo = await api.rrm('GET', '/getTopology');
    setZones(topo);
    setZone((z) => (z && topo[z] ? z : Object.keys(topo)[0] ?? ''));
  };
  useEffect(() => {
    loadZones().catch((e) => setError(`RRM service: ${e.message}`));
    api.rrm('GET', '/algorithms').then(setAlgorithms).catch(() => undefined);
  }, []);

  const modes = [...new Set([...(KNOWN_MODES[algorithm] ?? []), ...(algorithms.find((a) => a.shortName === algorithm)?.modes ?? [])])];
  const run = async (mock) => {
    setBusy(true);
    setError('');
    try {
      // optimizeChannel / optimizeTxPower: GET, which every browser may send across origins
      // (the RRM has its own port); runRRM is a PUT.
      const q = new URLSearchParams({ mode, zone, dry_run: String(mock) });
      const answer = await api.rrm('GET', `/${algorithm === 'OptimizeChannel' ? 'optimizeChannel' : 'optimizeTxPower'}?${q}`);
      const d = planDiff(algorithm === 'OptimizeChannel' ? { ...answer, channelMap: answer.data } : { ...answer, txPowerMap: answer.data }, aps);
      onPlan({ ...d, answer, zone, algorithm, mode, applied: !mock });
      setApplied(!mock);
      if (!mock) onApplied();
    } catch (e) {
      setError(e.message);
    } finally {
      setBusy(false);
    }
  };
  const makeZone = async () => {
    await api.rrm('POST', '/setTopology', { venue: [...aps.keys()] });
    await loadZones();
  };

  if (zones === null) return html`<div id="rrm"><p class="hint">${error || 'Asking the RRM service…'}</p></div>`;
  const progress = plan?.applied ? converged(plan.diff, aps) : undefined;
  return html`<div id="rrm">
    ${Object.keys(zones).length === 0
      ? html`<p class="hint">No RF zone yet. <button id="make-zone" onClick=${makeZone}>Make zone "venue" of all ${aps.size} APs</button></p>`
      : html`<div class="form">
        <label>zone <select id="rrm-zone" value=${zone} onChange=${(e) => setZone(e.target.value)}>${Object.keys(zones).map((z) => html`<option value=${z}>${z} (${zones[z].length})</option>`)}</select></label>
        <label>algorithm <select id="rrm-algorithm" value=${algorithm} onChange=${(e) => { setAlgorithm(e.target.value); setMode(KNOWN_MODES[e.target.value]?.[0] ?? ''); }}>
          ${['OptimizeChannel', 'OptimizeTxPower'].map((a) => html`<option value=${a}>${a}</option>`)}</select></label>
        <label>mode <select id="rrm-mode" value=${mode} onChange=${(e) => setMode(e.target.value)}>${modes.map((m) => html`<option value=${m}>${m}</option>`)}</select></label>
        <div class="buttons">
          <button id="rrm-dry-run" disabled=${busy || !zone} onClick=${() => run(true)}>Dry run</button>
          <button id="rrm-apply" disabled=${busy || !zone || !plan || plan.applied} onClick=${() => run(false)}>Apply</button>
          ${plan && html`<button onClick=${() => onPlan(null)}>Clear</button>`}
        </div>
      </div>`}
    ${error && html`<p class="error" id="rrm-error">${error}</p>`}
    ${plan && html`<div id="rrm-plan">
      <p><b>${plan.algorithm} ${plan.mode}</b> on ${plan.zone}${plan.applied ? ' (applied)' : ' (dry run)'}:
        <span id="rrm-changes">${plan.diff.size} AP(s) change</span>, ${plan.unchanged} radio(s) keep their ${plan.field === 'channel' ? 'channel' : 'power'}.</p>
      <${Score} score=${plan.answer.score} />
      ${progress && html`<p id="rrm-converge" class=${progress.done === progress.total ? 'ok' : ''}>The twin has taken ${progress.done} of ${progress.total} change(s)${progress.done === progress.total ? ': converged.' : ' (waiting for the APs\' next states)…'}</p>`}
      ${applied && plan.answer.notPushed && html`<p class="hint">Not sent: ${Object.entries(plan.answer.notPushed).map(([s, why]) => `${s}: ${why}`).join('; ')}</p>`}
      <table id="rrm-diff" class="aps"><thead><tr><th>AP</th><th>band</th><th>old → new</th></tr></thead><tbody>
        ${[...plan.diff].flatMap(([serial, bands]) => Object.entries(bands).map(([band, c]) => html`<tr data-serial=${serial} data-band=${band}>
          <td>${serial}</td><td>${band}</td><td>${c.channel ? `ch ${c.channel[0] ?? '?'} → ${c.channel[1]}` : ''}${c.txPower ? `${c.txPower[0] ?? '?'} → ${c.txPower[1]} dBm` : ''}</td></tr>`))}
      </tbody></table>
    </div>`}
  </div>`;
}
