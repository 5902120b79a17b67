// The RRM panel: pick a zone and a mode, run a dry run, see the plan on the map (changed APs,
// old -> new) with the score before and after when the RRM gives one; Apply, then watch the
// APs take the plan as their next states arrive.
import { html } from './html.js';
import { useEffect, useState } from 'preact/hooks';
import { radioOf } from './glyphs.js';

/** Used until /algorithms answers (or when it lists no `modes`): the upstream modes. */
const FALLBACK_MODES = {
  OptimizeChannel: ['least_used', 'unmanaged_aware', 'random'],
  OptimizeTxPower: ['measure_ap_ap', 'measure_ap_client', 'location_optimal', 'random'],
};

/** The modes of an algorithm from the /algorithms answer: [{name, description, plugin}]. */
export function modesOf(algorithms, algorithm) {
  const listed = algorithms.find((a) => a.shortName === algorithm)?.modes;
  if (listed?.length) return listed;
  return (FALLBACK_MODES[algorithm] ?? []).map((name) => ({ name, description: '', plugin: false }));
}

/** A seed for a dry run; Apply sends it again, so the plan applied is the plan shown. */
export function newSeed() {
  return String(globalThis.crypto.getRandomValues(new Uint32Array(1))[0]);
}

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

const FIGURES = [
  ['cci_mw', 'CCI', (v) => `${fmt(v)} mW`],
  ['conflictEdges', 'conflict edges', String],
  ['worstRadioCci_mw', 'worst radio CCI', (v) => `${fmt(v)} mW`],
  ['coverage', 'client coverage', (v) => `${(v * 100).toFixed(1)} %`],
  ['gridCoverage', 'floor coverage', (v) => `${(v * 100).toFixed(1)} %`],
  ['medianSinrDb', 'median SINR', (v) => `${v.toFixed(1)} dB`],
];

function fmt(v) {
  return v === 0 ? '0' : Math.abs(v) >= 0.1 ? v.toFixed(2) : v.toPrecision(2);
}

function change(before, after) {
  if (before === 0) return '';
  const pct = ((after - before) / before) * 100;
  // -99.8 % is not -100 %: a decimal where rounding would reach a whole change.
  const digits = Math.abs(pct) >= 99.5 && Math.abs(pct) < 100 ? 1 : 0;
  return `${pct > 0 ? '+' : ''}${pct.toFixed(digits)} %`;
}

/** The plan's score from the RRM's answer: {before, after}, each the objective's figures. */
function Score({ score }) {
  if (!score?.before || !score?.after) return null;
  const rows = FIGURES.filter(([k]) => typeof score.before[k] === 'number' && typeof score.after[k] === 'number');
  return html`<table id="rrm-score" class="aps score"><thead><tr><th>score</th><th>before</th><th>after</th><th></th></tr></thead><tbody>
    ${rows.map(([k, label, show]) => html`<tr data-figure=${k} data-before=${score.before[k]} data-after=${score.after[k]}>
      <td>${label}</td><td>${show(score.before[k])}</td><td>${show(score.after[k])}</td><td>${change(score.before[k], score.after[k])}</td></tr>`)}
    <tr data-figure="churn"><td>radios changed</td><td></td><td>${score.after.churn}</td><td></td></tr>
  </tbody></table>`;
}

export function RrmPanel({ api, aps, plan, onPlan, onApplied, zone, setZone }) {
  const [zones, setZones] = useState(null);
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

  const modes = modesOf(algorithms, algorithm);
  // A dry run picks a new seed; Apply runs the shown plan's zone, algorithm, mode and seed again.
  const run = async (mock) => {
    const what = mock ? { zone, algorithm, mode, seed: newSeed() } : { zone: plan.zone, algorithm: plan.algorithm, mode: plan.mode, seed: plan.seed };
    setBusy(true);
    setError('');
    try {
      // optimizeChannel / optimizeTxPower: GET, which every browser may send across origins
      // (the RRM has its own port); runRRM is a PUT.
      const q = new URLSearchParams({ mode: what.mode, zone: what.zone, dry_run: String(mock), seed: what.seed });
      const answer = await api.rrm('GET', `/${what.algorithm === 'OptimizeChannel' ? 'optimizeChannel' : 'optimizeTxPower'}?${q}`);
      const d = planDiff(what.algorithm === 'OptimizeChannel' ? { ...answer, channelMap: answer.data } : { ...answer, txPowerMap: answer.data }, aps);
      onPlan({ ...d, answer, ...what, applied: !mock });
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
        <label>algorithm <select id="rrm-algorithm" value=${algorithm} onChange=${(e) => { setAlgorithm(e.target.value); setMode(modesOf(algorithms, e.target.value)[0]?.name ?? ''); }}>
          ${['OptimizeChannel', 'OptimizeTxPower'].map((a) => html`<option value=${a}>${a}</option>`)}</select></label>
        <label>mode <select id="rrm-mode" value=${mode} onChange=${(e) => setMode(e.target.value)}>${modes.map((m) => html`<option value=${m.name} title=${m.description} data-plugin=${m.plugin ? 'true' : undefined}>${m.name}${m.plugin ? ' (plug-in)' : ''}</option>`)}</select></label>
        <div class="buttons">
          <button id="rrm-dry-run" disabled=${busy || !zone} onClick=${() => run(true)}>Dry run</button>
          <button id="rrm-apply" disabled=${busy || !zone || !plan || plan.applied} onClick=${() => run(false)}>Apply</button>
          ${plan && html`<button onClick=${() => onPlan(null)}>Clear</button>`}
        </div>
      </div>`}
    ${error && html`<p class="error" id="rrm-error">${error}</p>`}
    ${plan && html`<div id="rrm-plan">
      <p><b>${plan.algorithm} ${plan.mode}</b> on ${plan.zone}${plan.applied ? ' (applied)' : ' (dry run)'}, seed <span id="rrm-seed">${plan.seed}</span>:
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
