/**
 * The files a simulated AP uploads for commands: a trace's capture (libpcap), a diagnostic
 * script's bundle (.tar.gz) and a deferred shell script's output. Pure functions of the AP's
 * state and the time they are given.
 */
import { gzipSync } from 'node:zlib';
import type { SimAp } from './ap-state.js';

const macBytes = (mac: string): Buffer => Buffer.from(mac.replace(/[^0-9a-f]/gi, '').padEnd(12, '0').slice(0, 12), 'hex');
const ipBytes = (ip: string): Buffer => Buffer.from(ip.split('.').map((n) => Number(n) & 255).concat([0, 0, 0, 0]).slice(0, 4));

/** An Ethernet ARP request from a client (who-has its gateway), the frames a bridge sees most. */
function arpFrame(srcMac: string, srcIp: string, gatewayIp: string): Buffer {
  const src = macBytes(srcMac);
  const f = Buffer.alloc(42);
  Buffer.from('ffffffffffff', 'hex').copy(f, 0);
  src.copy(f, 6);
  f.writeUInt16BE(0x0806, 12);
  f.writeUInt16BE(1, 14); f.writeUInt16BE(0x0800, 16); f[18] = 6; f[19] = 4; f.writeUInt16BE(1, 20);
  src.copy(f, 22); ipBytes(srcIp).copy(f, 28);
  ipBytes(gatewayIp).copy(f, 38);
  return f;
}

/**
 * A libpcap capture (magic a1b2c3d4, version 2.4, LINKTYPE_ETHERNET) of `packets` frames over
 * `seconds`, ARP requests of the AP's own clients (of a made-up client when it has none).
 */
export function tracePcap(ap: SimAp, packets: number, seconds: number, startMs: number): Buffer {
  const clients = ap.radios.flatMap((r) => r.stations).map((c) => ({ mac: c.mac, ip: c.ipv4 }));
  if (clients.length === 0) clients.push({ mac: ap.serial, ip: '192.168.1.2' });
  const head = Buffer.alloc(24);
  head.writeUInt32LE(0xa1b2c3d4, 0); head.writeUInt16LE(2, 4); head.writeUInt16LE(4, 6);
  head.writeUInt32LE(65535, 16); head.writeUInt32LE(1, 20);
  const stepUs = Math.max(1, Math.floor((seconds * 1_000_000) / Math.max(1, packets)));
  const recs: Buffer[] = [head];
  for (let i = 0; i < packets; i++) {
    const c = clients[i % clients.length]!;
    const frame = arpFrame(c.mac, c.ip, c.ip.replace(/\.\d+$/, '.1'));
    const tUs = startMs * 1000 + i * stepUs;
    const r = Buffer.alloc(16);
    r.writeUInt32LE(Math.floor(tUs / 1_000_000), 0); r.writeUInt32LE(tUs % 1_000_000, 4);
    r.writeUInt32LE(frame.length, 8); r.writeUInt32LE(frame.length, 12);
    recs.push(r, frame);
  }
  return Buffer.concat(recs);
}

/** One ustar entry: a 512-byte header and the content padded to 512. */
function tarEntry(name: string, content: Buffer, mtimeS: number): Buffer {
  const h = Buffer.alloc(512);
  const put = (s: string, at: number, len: number) => h.write(s.slice(0, len), at, len, 'ascii');
  const octal = (n: number, len: number) => n.toString(8).padStart(len - 1, '0');
  put(name, 0, 100);
  put(octal(0o644, 8), 100, 8); put(octal(0, 8), 108, 8); put(octal(0, 8), 116, 8);
  put(octal(content.length, 12), 124, 12); put(octal(mtimeS, 12), 136, 12);
  put('        ', 148, 8);
  h[156] = 0x30; // '0': a regular file
  put('ustar', 257, 6); put('00', 263, 2); put('root', 265, 32); put('root', 297, 32);
  let sum = 0;
  for (const b of h) sum += b;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  const pad = Buffer.alloc((512 - (content.length % 512)) % 512);
  return Buffer.concat([h, content, pad]);
}

/** A gzip'd tar of `files` (ustar, two zero blocks at the end). */
export function tarGz(files: { name: string; content: string | Buffer }[], mtimeS: number): Buffer {
  const parts = files.map((f) => tarEntry(f.name, Buffer.isBuffer(f.content) ? f.content : Buffer.from(f.content), mtimeS));
  return gzipSync(Buffer.concat([...parts, Buffer.alloc(1024)]));
}

/** The diagnostic bundle: the AP's state, its recent events as a log, its radio configuration. */
export function diagnosticBundle(ap: SimAp, nowMs: number): Buffer {
  const s = Math.floor(nowMs / 1000);
  const state = {
    serial: ap.serial, model: ap.model, firmware: ap.firmware, uuid: ap.uuid, up: ap.up, uptime: Math.max(0, Math.floor((nowMs - ap.bootAt) / 1000)),
    radios: ap.radios.map((r) => ({ band: r.band, channel: r.channel, width: r.width, txPower: r.txPower, enabled: r.enabled, stations: r.stations.length })),
  };
  const log = ap.recentEvents.map((e) => `${new Date(e.at).toISOString()} ${e.type} ${JSON.stringify(e.payload)}`).join('\n');
  const config = { uuid: ap.uuid, country: ap.country, radios: ap.radios.map((r) => ({ band: r.band, channel: r.channel, 'channel-width': r.width, 'tx-power': r.txPower })), intervals: ap.intervals };
  return tarGz([
    { name: 'diagnostic/state.json', content: `${JSON.stringify(state, null, 2)}\n` },
    { name: 'diagnostic/system.log', content: `${log || `${new Date(nowMs).toISOString()} no events`}\n` },
    { name: 'diagnostic/config.json', content: `${JSON.stringify(config, null, 2)}\n` },
  ], s);
}
