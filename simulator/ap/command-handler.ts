/**
 * How a simulated AP answers each command (docs/upstream.md#commands): result codes 0 = done, 1 = done with substitutions
 * (configure `rejected[]`) or unsupported, 2 = refused. Side effects (radio changes, reboots,
 * telemetry) go through `ApControl`, which the AP's link provides on the shared clock.
 */
import type { CommandFrame, UpFrame } from '../../src/protocol/frame.js';
import type { Venue } from '../venue.js';
import type { SimRtty, SimUpload } from '../link.js';
import { diagnosticBundle, tracePcap } from './files.js';
import type { SimAp } from './ap-state.js';
import { configure } from './configure.js';
import { openShell } from './shell.js';
import { healthcheckFrame, logFrame, resultFrame, stateFrame, wifiscanResult } from './frames.js';
import { deflateSync } from 'node:zlib';

export interface ApControl {
  venue: Venue;
  ap: SimAp;
  emit(frame: UpFrame): void;
  /** Run later on the venue clock; dropped if the AP disconnects first. */
  after(ms: number, fn: () => void): void;
  /** POSTs a file to a command's upload uri; absent: files go inline in the reply. */
  upload?: SimUpload;
  /** Starts the AP's rtty client; absent: the AP only checks the command. */
  rtty?: SimRtty;
  reboot(opts: { firmware?: string; factory?: boolean }): void;
  telemetry(intervalS: number, lifetimeS: number): void;
  /** Message intervals changed: restart the periodic timers. */
  intervalsChanged(): void;
}

/** Script / trace output in the fw's `result_64` + `result_sz` form (zlib, base64). */
function fileResult(bytes: Buffer): { result_64: string; result_sz: number } {
  return { result_64: deflateSync(bytes).toString('base64'), result_sz: bytes.length };
}

/**
 * The fw's upload of a command's file (ucentral-client upload.c: curl -F, then a log line saying
 * how it went). The upload runs beside the reply, as on the AP.
 */
function uploadFile(ctl: ApControl, uri: string, fileName: string, bytes: Buffer): void {
  const { ap } = ctl;
  const uuid = uri.split('?')[0]!.split('/').filter(Boolean).pop() ?? '';
  ctl.upload!({ uri, serial: ap.serial, uuid, fileName, bytes }).then(
    () => ctl.emit(logFrame(ap, 'upload complete', 6)),
    (e: unknown) => ctl.emit(logFrame(ap, `failed to upload file: ${e instanceof Error ? e.message : String(e)}`, 3)),
  );
}

/** What every per-method handler sees of one command. */
interface Command {
  ctl: ApControl;
  ap: SimAp;
  venue: Venue;
  p: CommandFrame['params'];
  id: number;
  /** Venue time the command arrived at. */
  t: number;
  /** Time until the command's `when` (0 when absent or past). */
  whenDelay: number;
  /**
   * Emit a reply after a processing delay. The default delay draws from the AP's rng only when no
   * delay is given, so the draws (and every later one of the seeded venue) stay in call order.
   */
  reply(f: () => UpFrame, delayMs?: number): void;
}

type Handler = (c: Command) => void;

const refuse = (c: Command, text: string): void => c.reply(() => resultFrame(c.ap, c.id, { error: 2, text }));

function rebootAfterReply(c: Command, factory: boolean): void {
  c.reply(() => resultFrame(c.ap, c.id, { error: 0, text: 'Success', when: c.p.when ?? 0 }));
  c.ctl.after(c.whenDelay + 1000, () => c.ctl.reboot(factory ? { factory: true } : {}));
}

function upgrade(c: Command): void {
  const { ap, id, p } = c;
  const uri = p.uri;
  if (typeof uri !== 'string' || uri.length === 0) { c.reply(() => resultFrame(ap, id, { error: 1, text: 'Invalid firmware: no uri', when: 0 })); return; }
  const image = uri.split('/').pop()!.replace(/\.(bin|img|tar|gz|itb|trx)+$/g, '');
  c.reply(() => resultFrame(ap, id, { error: 0, text: 'Success', when: p.when ?? 0 }));
  c.ctl.after(c.whenDelay + 20_000, () => c.ctl.reboot({ firmware: `OpenWrt 21.02-SNAPSHOT / TIP-${image}` }));
}

function leds(c: Command): void {
  const pattern = c.p.pattern ?? 'on';
  if (!['on', 'off', 'blink'].includes(pattern as string)) { refuse(c, `unknown pattern ${String(pattern)}`); return; }
  c.reply(() => resultFrame(c.ap, c.id, { error: 0, text: 'Success', resultCode: 0 }));
}

/**
 * The fw checks what it needs, answers, and starts its rtty client towards server:port with the
 * session id and token (when the link gives it a way to reach the server).
 */
function rtty(c: Command): void {
  const { ap, p, ctl, venue } = c;
  const missing = ['id', 'token', 'server'].find((k) => typeof p[k] !== 'string' || p[k] === '');
  const port = p.port;
  if (missing) { refuse(c, `rtty: ${missing} missing`); return; }
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) { refuse(c, 'rtty: port must be 1..65535'); return; }
  c.reply(() => resultFrame(ap, c.id, { error: 0, text: 'Success' }));
  const client = ctl.rtty;
  if (client) {
    const session = { serial: ap.serial, server: p.server as string, port, id: p.id as string, token: p.token as string };
    ctl.after(0, () => client({ ...session, shell: (io) => openShell(ap, () => venue.clock.now(), io) }));
  }
}

function request(c: Command): void {
  const { ap, p, ctl, venue } = c;
  const ru = typeof p.request_uuid === 'string' ? p.request_uuid : undefined;
  if (p.message !== 'state' && p.message !== 'healthcheck') { refuse(c, `unknown message ${String(p.message)}`); return; }
  c.reply(() => resultFrame(ap, c.id, { error: 0, text: 'Success' }));
  ctl.after(300, () => ctl.emit(p.message === 'state' ? stateFrame(venue, ap, ru) : healthcheckFrame(ap, ru)));
}

/** fw: `events` beside `status`, one list per asked type (PROTOCOL.md "eventqueue buffers"). */
function event(c: Command): void {
  const { ap, p } = c;
  const types = Array.isArray(p.types) ? p.types.filter((x): x is string => typeof x === 'string') : [];
  c.reply(() => {
    const events: Record<string, unknown[]> = {};
    for (const ty of types) {
      events[ty] = ap.recentEvents.filter((e) => e.type === ty || e.type.startsWith(`${ty}.`))
        .map((e) => ({ timestamp: Math.floor(e.at / 1000), type: e.type, payload: e.payload }));
    }
    return resultFrame(ap, c.id, { error: 0, text: 'Success' }, { events });
  });
}

function telemetry(c: Command): void {
  const { p } = c;
  const interval = typeof p.interval === 'number' ? p.interval : -1;
  if (interval < 0 || interval > 120) { refuse(c, 'interval must be 0..120 s'); return; }
  c.reply(() => resultFrame(c.ap, c.id, { error: 0, text: interval === 0 ? 'Telemetry stopped' : 'Telemetry started' }));
  // PROTOCOL.md: the AP stops streaming by itself after 30 minutes unless told a lifetime.
  c.ctl.telemetry(interval, typeof p.lifetime === 'number' ? p.lifetime : 1800);
}

/** fw: one trigger over 2.4 GHz (~2 s); 5 GHz steps of 500 ms plus 5 s settling. */
function wifiscan(c: Command): void {
  const { p } = c;
  const bands = Array.isArray(p.bands) ? (p.bands as string[]) : undefined;
  const channels = Array.isArray(p.channels) ? (p.channels as number[]) : undefined;
  const only24 = bands !== undefined && bands.every((b) => b === '2G');
  c.reply(() => wifiscanResult(c.venue, c.ap, c.id, { ...(bands ? { bands } : {}), ...(channels ? { channels } : {}) }, p.verbose !== false), only24 ? 2000 : 6000);
}

/** fw: the capture goes to the upload uri; inline (result_64) only when there is none. */
function trace(c: Command): void {
  const { ap, p, ctl } = c;
  const seconds = typeof p.duration === 'number' ? p.duration : 10;
  const packets = typeof p.packets === 'number' ? Math.min(p.packets, 1000) : Math.min(1000, seconds * 10);
  const uri = typeof p.uri === 'string' && ctl.upload ? p.uri : undefined;
  ctl.after(seconds * 1000, () => {
    const capture = tracePcap(ap, packets, seconds, c.t);
    const status = { error: 0, text: 'Trace completed', resultCode: 0, resultText: 'Done' };
    if (uri) uploadFile(ctl, uri, 'trace.pcap', capture);
    ctl.emit(resultFrame(ap, c.id, uri ? status : { ...status, ...fileResult(capture) }));
  });
}

function script(c: Command): void {
  const { ap, p, ctl, venue } = c;
  const type = p.type;
  if (!['shell', 'ucode', 'bundle', 'diagnostic'].includes(type as string)) { refuse(c, `unsupported script type ${String(type)}`); return; }
  const src = typeof p.script === 'string' ? Buffer.from(p.script, 'base64').toString('utf8') : '';
  const output = () => Buffer.from(`# ${String(type)} on ${ap.serial} at ${Math.floor(venue.clock.now() / 1000)}\n# ${src.length} bytes of script, exit 0\n`);
  const file = () => (type === 'shell' ? { name: 'output.txt', bytes: output() } : { name: 'bundle.tar.gz', bytes: diagnosticBundle(ap, venue.clock.now()) });
  // fw: a deferred script (no timeout, an upload uri) is acknowledged at once, runs in the background and uploads its output.
  if (p.timeout === undefined) {
    c.reply(() => resultFrame(ap, c.id, { error: 0, text: 'Pending' }));
    const uri = typeof p.uri === 'string' && ctl.upload ? p.uri : undefined;
    if (uri) ctl.after(ap.rng.int(500, 2000), () => { const f = file(); uploadFile(ctl, uri, f.name, f.bytes); });
    return;
  }
  c.reply(() => resultFrame(ap, c.id, { error: 0, text: 'Success', ...fileResult(type === 'diagnostic' ? file().bytes : output()) }), ap.rng.int(200, 3000));
}

/** The AP's command table: one handler per uCentral method it supports. */
const HANDLERS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ['configure', (c) => c.reply(() => configure(c.venue, c.ap, c.id, c.p, () => c.ctl.intervalsChanged()), c.ap.rng.int(500, 2000))],
  ['reboot', (c) => rebootAfterReply(c, false)],
  ['factory', (c) => rebootAfterReply(c, true)],
  ['upgrade', upgrade],
  ['leds', leds],
  ['ping', (c) => c.reply(() => resultFrame(c.ap, c.id, { error: 0, text: 'Success' }, { uuid: c.ap.uuid, deviceUTCTime: c.venue.clock.now() }))],
  ['rtty', rtty],
  ['request', request],
  ['event', event],
  ['telemetry', telemetry],
  ['wifiscan', wifiscan],
  ['trace', trace],
  ['script', script],
]);

/** Handle one command. Replies are emitted through `ctl` after a short processing delay. */
export function handleCommand(ctl: ApControl, cmd: CommandFrame): void {
  const { ap, venue } = ctl;
  const p = cmd.params;
  const t = venue.clock.now();
  const c: Command = {
    ctl, ap, venue, p, id: cmd.id, t,
    whenDelay: typeof p.when === 'number' && p.when * 1000 > t ? p.when * 1000 - t : 0,
    reply: (f, delayMs = ap.rng.int(20, 200)) => ctl.after(delayMs, () => ctl.emit(f())),
  };
  const handler = HANDLERS.get(cmd.method);
  if (handler) handler(c);
  else c.reply(() => resultFrame(ap, cmd.id, { error: 1, text: `${cmd.method} is not supported by this device` }));
}
