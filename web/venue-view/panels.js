// Side panels about APs: the list of every AP on the band, one AP's details, the hover tooltip.
import { html } from './html.js';
import { useState } from 'preact/hooks';
import { radioOf } from './glyphs.js';

export const time = (ms) => (ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + 'Z' : 'never');

export function ApList({ aps, band, selected, onSelect }) {
  const rows = [...aps.values()].sort((a, b) => (a.serial < b.serial ? -1 : 1));
  return html`<table id="ap-list" class="aps">
    <thead><tr><th>serial</th><th>ch</th><th>dBm</th><th>clients</th><th>util</th></tr></thead>
    <tbody>${rows.map((ap) => {
      const r = radioOf(ap, band);
      return html`<tr key=${ap.serial} data-serial=${ap.serial} class=${`${selected === ap.serial ? 'sel' : ''} ${ap.connected ? '' : 'off'}`} onClick=${() => onSelect(ap.serial)}>
        <td>${ap.serial}</td><td class="ch">${r?.channel ?? '–'}</td><td class="tx">${r?.txPower ?? '–'}</td>
        <td>${r?.clients ?? 0}</td><td>${r?.chanUtil ?? '–'}</td></tr>`;
    })}</tbody></table>`;
}

function Radios({ ap }) {
  return html`<table class="radios"><thead><tr><th>band</th><th>channel</th><th>width</th><th>power</th><th>clients</th><th>util %</th></tr></thead>
    <tbody>${ap.radios.map((r) => html`<tr data-band=${r.band}><td>${r.band}</td><td>${r.channel}</td><td>${r.width}</td><td>${r.txPower} dBm</td><td>${r.clients}</td><td>${r.chanUtil ?? '–'}</td></tr>`)}</tbody></table>`;
}

export function ApDetails({ ap, api }) {
  const [record, setRecord] = useState(null);
  if (!ap) return html`<p class="hint">Click an AP on the map or in the list.</p>`;
  const url = `/api/v1/device/${ap.serial}`;
  const show = async () => setRecord(JSON.stringify(await api.gw('GET', `/device/${ap.serial}`).catch((e) => e.body ?? String(e)), null, 2));
  const clients = ap.radios.reduce((n, r) => n + r.clients, 0);
  return html`<div id="ap-details" data-serial=${ap.serial}>
    <h3>${ap.serial}</h3>
    <dl><dt>model</dt><dd>${ap.model || 'unknown'}</dd><dt>state</dt><dd>${ap.state}${ap.connected ? '' : ' (offline)'}</dd>
      <dt>clients</dt><dd>${clients}</dd><dt>last state</dt><dd>${time(ap.lastStateAt || ap.lastContact * 1000)}</dd></dl>
    <${Radios} ap=${ap} />
    <p><a href=${url} onClick=${(e) => { e.preventDefault(); void show(); }}>gateway record</a> <code>GET ${url}</code></p>
    ${record && html`<pre class="record">${record}</pre>`}
  </div>`;
}

export function Tooltip({ hover, aps, at }) {
  if (!hover) return null;
  const style = `left:${at.x + 14}px;top:${at.y + 14}px`;
  if (hover.neighbour || hover.unmanaged) {
    const n = hover.neighbour ?? hover.unmanaged;
    return html`<div id="tooltip" class="tooltip" style=${style}><b>unmanaged</b> ${n.ssid || '(hidden)'}<br/>${n.bssid}<br/>channel ${n.channel}${n.txPower !== undefined ? `, ${n.txPower} dBm` : ''}</div>`;
  }
  const ap = aps.get(hover.serial);
  if (!ap) return null;
  return html`<div id="tooltip" class="tooltip" style=${style} data-serial=${ap.serial}>
    <b>${ap.serial}</b> ${ap.model}<br/>
    ${ap.radios.map((r) => html`<span class="radio">${r.band}: ch ${r.channel}/${r.width} MHz, ${r.txPower} dBm, ${r.clients} clients</span><br/>`)}
    ${ap.connected ? 'online' : 'offline'} · last state ${time(ap.lastStateAt || ap.lastContact * 1000)}
  </div>`;
}
