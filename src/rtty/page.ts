/**
 * The terminal page the viewport answers on `GET /connect/<id>`: one self-contained HTML
 * document (no CDN, no build) that opens the websocket on the same path. Output shows in a
 * <pre> (escape sequences stripped); each key goes to the device as typed, so the device's
 * shell does the echo, as in a terminal.
 */

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const SCRIPT = `
const out = document.getElementById('out');
const state = document.getElementById('state');
const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + location.pathname;
const ws = new WebSocket(url);
ws.binaryType = 'arraybuffer';
const decoder = new TextDecoder();
const say = (s) => { state.textContent = s; };
const show = (text) => {
  for (const part of text.replace(/\\x1b\\[[0-9;?]*[A-Za-z]/g, '').split(/(\\x08|\\r)/)) {
    if (part === '\\x08') out.textContent = out.textContent.slice(0, -1);
    else if (part !== '\\r') out.textContent += part;
  }
  window.scrollTo(0, document.body.scrollHeight);
};
ws.onopen = () => say('connected; waiting for the device');
ws.onclose = () => say('session ended');
ws.onmessage = (e) => {
  if (typeof e.data !== 'string') { show(decoder.decode(e.data, { stream: true })); return; }
  const m = JSON.parse(e.data);
  if (m.type === 'login') say(m.err === 0 ? 'logged in' : 'the device refused the login (' + m.err + ')');
  else if (m.type === 'waiting') say('waiting for the device to connect');
  else if (m.type === 'expired') say('the session expired');
  else if (m.type === 'logout') say('the device closed the session');
  if (m.type === 'login' && m.err === 0) ws.send(JSON.stringify({ type: 'winsize', cols: 120, rows: 40 }));
};
const keys = { Enter: '\\r', Backspace: '\\x7f', Tab: '\\t', Escape: '\\x1b', ArrowUp: '\\x1b[A', ArrowDown: '\\x1b[B', ArrowRight: '\\x1b[C', ArrowLeft: '\\x1b[D' };
const encoder = new TextEncoder();
document.addEventListener('keydown', (e) => {
  if (ws.readyState !== 1 || e.metaKey) return;
  let s = keys[e.key];
  if (!s && e.ctrlKey && e.key.length === 1) s = String.fromCharCode(e.key.toUpperCase().charCodeAt(0) & 0x1f);
  else if (!s && e.key.length === 1 && !e.ctrlKey && !e.altKey) s = e.key;
  if (!s) return;
  e.preventDefault();
  ws.send(encoder.encode(s));
});
document.addEventListener('paste', (e) => {
  const text = e.clipboardData ? e.clipboardData.getData('text') : '';
  if (text && ws.readyState === 1) { e.preventDefault(); ws.send(encoder.encode(text)); }
});
`;

export function terminalPage(id: string, serial: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>rtty ${escapeHtml(serial)}</title>
<style>body{margin:0;background:#111;color:#ddd;font:14px monospace}header{padding:6px 10px;background:#222;position:sticky;top:0}
pre{margin:0;padding:10px;white-space:pre-wrap;word-break:break-all;min-height:80vh}</style></head>
<body><header>rtty session <span>${escapeHtml(id)}</span> to device <span>${escapeHtml(serial)}</span>: <span id="state">connecting</span></header>
<pre id="out" tabindex="0"></pre>
<script>${SCRIPT}</script></body></html>
`;
}
