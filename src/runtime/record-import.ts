/**
 * `airtwin record --from-states DIR --out FILE`: turn a folder of captured AP documents (raw
 * `state`, `healthcheck` and `capabilities` JSON, like shared/fixtures/real-ap) into a recording
 * that `airtwin replay` plays (docs/record-replay.md#the-recording-format).
 *
 * What each file is (every *.json under DIR, `.JSON` too, in path order):
 * - a frame `{"jsonrpc":"2.0","method":"connect"|"state"|"healthcheck","params":{serial,...}}`;
 * - a wrapped document with a serial: `{serial|serialNumber, state|capabilities, uuid?}`
 *   (the RRM/Kafka style) or `{serial, sanity, data}` (healthcheck);
 * - a raw document: capabilities (`compatible` + `wifi`/`platform`), state (`unit` + `radios`
 *   or `interfaces`), healthcheck (`sanity` + `data`), or a configuration (`uuid` + `radios`/
 *   `interfaces` + `services`/`metrics`/`globals`: gives its folder's device its config uuid);
 * - an export of a gateway's API (this one's or OpenWiFi's, spec "DeviceStatistics",
 *   "DeviceHealthChecks", "DeviceLogs", "DeviceCapabilities"): `GET /device/{serial}/statistics`,
 *   `/healthchecks` or `/logs` saved as they come (`{serialNumber, values: [...]}`, each value's
 *   `data` JSON text or an object), or `/capabilities` (`{serialNumber, capabilities}`). A log
 *   entry becomes the frame that stores it so again (`log`, `crashlog`, `rebootLog`). A value
 *   that cannot be used is skipped and listed as `file: values[i]: why`; an entry an earlier
 *   file held (answers saved one by one overlap) is imported once.
 * Anything else is skipped and listed with why.
 *
 * Which device. A serial in the document wins; else a 12-hex serial in the file or a folder
 * name; else one device per folder for its states and healthchecks, with a serial derived from
 * the folder path (stable), and one device per extra capabilities file. A device with no
 * capabilities document gets minimal ones built from its first state's radios.
 *
 * Order and times are stable (same folder => byte-identical file): devices in serial order
 * connect one second apart from `startMs`; each sends `connect`, then its reports in order of
 * their `unit.localtime` (then path), one every `intervalMs`. When every report of every device
 * was exported with its `recorded` time, those times are kept instead (each device connects at
 * its first), so a `replay --keep-time` stores them as the gateway had them (a device with no report
 * connects with the first report). A folder that mixes the two gets the synthetic times
 * throughout: one file, one time base.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { checkWritableFile, ConfigError, sameFile } from '../config/flags.js';
import { isObject, type JsonObject } from '../protocol/frame.js';
import { normalizeSerial, parseSerial } from '../protocol/serial.js';
import { ALL_CHANNELS, type Band } from '../protocol/wifi-channels.js';
import { radioBand } from '../rrm/model/band.js';
import { earlierParts, ndjsonFileWriter, RecordingError, regularFileBytes, removeParts } from '../links/record/ndjson-writer.js';
import { printable } from '../links/replay/read-recording.js';

export interface RecordImportOptions {
  fromStates: string;
  out: string;
  /** Time of the first connect (epoch ms). Default 2023-11-14T22:13:20Z, a fixed point. */
  startMs?: number;
  /** Time between a device's reports (default 60 s). */
  intervalMs?: number;
}

/** One skipped file as printed; a file's name and a parse error's quote of it may hold terminal control bytes. */
const skippedLine = (s: { file: string; reason: string }): string => `record: skipped ${printable(s.file)}: ${printable(s.reason)}\n`;

/** A folder with not one document to import: no recording is written (exit 1). */
export class NothingToRecordError extends Error {
  override name = 'NothingToRecordError';
  constructor(readonly folder: string, skipped: number) {
    super(`${folder} holds no state, healthcheck, capabilities or configuration document (${skipped} files skipped): nothing recorded`);
  }
}

export interface RecordImportSummary {
  devices: number;
  lines: number;
  /** Files not used, relative to the folder, and why. */
  skipped: { file: string; reason: string }[];
  /** The exported `recorded` times of the reports, or the made-up spacing (some or all had none). */
  timeBase: 'recorded' | 'synthetic';
  /** What the import did that may not be what was meant, as printed (e.g. a folder whose states look like several APs). */
  warnings: string[];
}

/** `log`: a device log entry of an API export, as the frame that made it (`body`: method and params). */
type Kind = 'capabilities' | 'state' | 'healthcheck' | 'config' | 'log';
interface Doc {
  file: string; kind: Kind; serial?: string; body: JsonObject; uuid?: number;
  /** Exported time, epoch ms. */ recordedMs?: number;
  /** The firmware a captured connect frame names. */ firmware?: string;
}
interface Device { serial: string; capabilities?: JsonObject; uuid?: number; firmware?: string; reports: Doc[] }

const DEFAULT_START_MS = 1_700_000_000_000;

/** Path order: a name's folder before the next name (the order a walk by name gives). */
const pathKey = (p: string) => p.replaceAll(sep, '\0');
const byPath = (a: string, b: string) => (pathKey(a) < pathKey(b) ? -1 : pathKey(a) > pathKey(b) ? 1 : 0);
const SERIAL_IN_NAME = /(?:^|[^0-9a-f])([0-9a-f]{2}(?:[:-]?[0-9a-f]{2}){5})(?![0-9a-f])/gi;

/**
 * Whether 12 decimal digits read as a time stamp, as `date +%Y%m%d%H%M` (202404011200) or
 * `+%y%m%d%H%M%S` (240401120000) name captures: such a name is a time, not a serial.
 */
function looksLikeTime(digits: string): boolean {
  if (!/^\d{12}$/.test(digits)) return false;
  const n = (from: number, to: number) => Number(digits.slice(from, to));
  const clock = (month: number, day: number, hour: number, minute: number, second = 0) =>
    month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 59;
  const year = n(0, 4);
  return (year >= 1970 && year <= 2099 && clock(n(4, 6), n(6, 8), n(8, 10), n(10, 12))) || clock(n(2, 4), n(4, 6), n(6, 8), n(8, 10), n(10, 12));
}

/** The first serial written in `name` (12 hex digits, maybe as a MAC), passing over time stamps. */
function serialInName(name: string): string | undefined {
  for (const m of name.matchAll(SERIAL_IN_NAME)) {
    const serial = normalizeSerial(m[1]!);
    if (!looksLikeTime(serial)) return serial;
  }
  return undefined;
}

/** The error code of a failed file system call (ELOOP, EACCES, ...), or its message. */
const fsCode = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? String((e as Error).message);

/**
 * Every *.json regular file under `dir` (`.JSON` too), in path order. Links are followed, but a
 * folder is read once however many links lead to it (a link to `..` would loop, a `latest` link
 * would import its target twice), and by its own path when it has one: links to folders are
 * followed after every folder under `dir` is read, so the serials derived from paths do not
 * depend on what a link is named. A file, too, is read once: by its own path before any link to
 * it (`latest.json -> state-9.json`), and by the first of its names in path order when it has
 * several (hard links). What is not imported goes into `skipped` with why, relative to
 * `dir`: what cannot be read (a broken link, a permission, a FIFO that would block the read), a
 * second way to a file already read, and any other file. Hidden names (`.DS_Store`, an editor's lock file, all of `.git/`) are not
 * listed, nobody means to import them; a hidden *.json that can be read is still imported.
 */
function jsonFiles(dir: string, skipped: RecordImportSummary['skipped']): string[] {
  // Each file found, with the identity of what it is (device and inode, the target's for a link).
  const files: { path: string; id: string; link: boolean }[] = [];
  const skips: RecordImportSummary['skipped'] = [];
  const seen = new Set<string>();
  const links: { path: string; hidden: boolean }[] = [];
  const skip = (p: string, reason: string) => skips.push({ file: relative(dir, p) || '.', reason });
  const walk = (d: string, hidden: boolean) => {
    let names: string[];
    try {
      const real = realpathSync(d);
      if (seen.has(real)) return hidden ? undefined : skip(d, 'folder already read (a link to it or to a folder above it)');
      seen.add(real);
      names = readdirSync(d).sort();
    } catch (e) {
      return hidden ? undefined : skip(d, `cannot read the folder (${fsCode(e)})`);
    }
    for (const name of names) {
      const p = join(d, name);
      const quiet = hidden || name.startsWith('.');
      const json = /\.json$/i.test(name);
      let st: Stats;
      let link: boolean;
      try {
        link = lstatSync(p).isSymbolicLink();
        st = statSync(p);
      } catch (e) {
        // Hidden: an editor's lock file (`.#state.json`, a dangling link) is nothing to list.
        if (!quiet) skip(p, `cannot read (${fsCode(e)})`);
        continue;
      }
      if (st.isDirectory()) {
        if (link) links.push({ path: p, hidden: quiet });
        else walk(p, quiet);
      } else if (!json) {
        if (!quiet) skip(p, 'not a .json file');
      } else if (st.isFile()) files.push({ path: p, id: `${st.dev}:${st.ino}`, link });
      else skip(p, 'not a regular file');
    }
  };
  walk(dir, false);
  // Links found in a linked folder join the end of the list.
  for (let i = 0; i < links.length; i++) walk(links[i]!.path, links[i]!.hidden);
  // Back into path order (byPath), a file by its own path first, then links to files: the first
  // way to a file is the one read.
  files.sort((a, b) => (a.link === b.link ? byPath(a.path, b.path) : a.link ? 1 : -1));
  const read = new Map<string, string>();
  const out: string[] = [];
  for (const f of files) {
    const first = read.get(f.id);
    if (first === undefined) {
      read.set(f.id, f.path);
      out.push(f.path);
    } else skip(f.path, `${f.link ? 'a link to' : 'the same file as'} ${relative(dir, first)}, already read`);
  }
  skipped.push(...skips.sort((a, b) => byPath(a.file, b.file)));
  return out.sort(byPath);
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function classifyRaw(d: JsonObject): Kind | undefined {
  if (typeof d.compatible === 'string' && (isObject(d.wifi) || typeof d.platform === 'string')) return 'capabilities';
  const hasRadio = d.radios !== undefined || d.interfaces !== undefined;
  if (num(d.uuid) !== undefined && hasRadio && (d.services !== undefined || d.metrics !== undefined || d.globals !== undefined)) return 'config';
  if (isObject(d.unit) && hasRadio) return 'state';
  if (num(d.sanity) !== undefined && isObject(d.data)) return 'healthcheck';
  return undefined;
}

/** A JSON object, or JSON text of one (an API export's `data`, `capabilities`). */
function objectOf(v: unknown): JsonObject | undefined {
  if (isObject(v)) return v;
  if (typeof v !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(v);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A frame that makes a log entry of `GET /device/{serial}/logs` again
 * (docs/upstream.md#what-each-notification-does), by its logType: 0 `log`, 1 `crashlog` (its lines,
 * each stored with CRLF after it), 2 `rebootLog` (the entry's time is the AP's date). Or why it
 * cannot be one.
 */
function logFrame(e: JsonObject, log: string, recorded: number | undefined): JsonObject | string {
  const data = objectOf(e.data) ?? {};
  const uuid = num(e.UUID) ?? 0;
  const lines = () => (log.endsWith('\r\n') ? log.slice(0, -2) : log).split('\r\n');
  switch (e.logType ?? 0) {
    case 0:
      return { method: 'log', params: { log, severity: num(e.severity) ?? 6, data } };
    case 1:
      // A recovery log ("Firmware: ..." first, uuid 0) is stored exactly so too.
      return { method: 'crashlog', params: { uuid, loglines: log === '' ? [] : lines() } };
    case 2:
      if (recorded === undefined) return 'a reboot log without its recorded time';
      return { method: 'rebootLog', params: { uuid, type: log, date: recorded, info: Array.isArray(data.info) ? data.info : [] } };
    default:
      return `logType ${JSON.stringify(e.logType)} is not 0, 1 or 2`;
  }
}

/**
 * The reports of a statistics, health check or log export (`{serialNumber, values}`), or why the file
 * is not one; a value that cannot be used goes into `skip` with its index.
 */
function exportedReports(file: string, serial: string, values: unknown[], skip: (reason: string) => void): Doc[] | string {
  const docs: Doc[] = [];
  values.forEach((e, i) => {
    if (!isObject(e)) return skip(`values[${i}]: not a JSON object`);
    const recorded = num(e.recorded);
    // Seconds, as the API gives them; a time a Date cannot hold is no time.
    const recordedMs = recorded !== undefined && recorded > 0 && recorded < 8.64e12 ? recorded * 1000 : undefined;
    if (typeof e.log === 'string') {
      const frame = logFrame(e, e.log, recorded);
      return typeof frame === 'string' ? skip(`values[${i}]: ${frame}`) : void docs.push({ file, kind: 'log', serial, body: frame, recordedMs });
    }
    const body = objectOf(e.data);
    if (!body) return skip(`values[${i}]: data is not a JSON object (or JSON text of one)`);
    const uuid = num(e.UUID);
    const sanity = num(e.sanity);
    if (sanity !== undefined) docs.push({ file, kind: 'healthcheck', serial, body: { sanity, data: body }, uuid, recordedMs });
    else docs.push({ file, kind: 'state', serial, body, uuid, recordedMs });
  });
  if (docs.length > 0) return docs;
  return values.length === 0 ? 'an API export with no values' : 'an API export with no usable value';
}

/** What a parsed file holds (one document, or an API export's many), or why it is not used. */
function classify(file: string, rel: string, v: unknown, skip: (reason: string) => void): Doc | Doc[] | string {
  if (!isObject(v)) return 'not a JSON object';
  if (v.jsonrpc === '2.0' && isObject(v.params)) {
    const p = v.params;
    const serial = parseSerial(p.serial);
    if (!serial) return 'frame without a valid params.serial';
    if (v.method === 'connect' && isObject(p.capabilities)) {
      return { file, kind: 'capabilities', serial, body: p.capabilities, uuid: num(p.uuid), ...(typeof p.firmware === 'string' && p.firmware !== '' ? { firmware: p.firmware } : {}) };
    }
    if (v.method === 'state' && isObject(p.state)) return { file, kind: 'state', serial, body: p.state, uuid: num(p.uuid) };
    if (v.method === 'healthcheck') return { file, kind: 'healthcheck', serial, body: p, uuid: num(p.uuid) };
    // A log as the AP sent it, played as sent (as a log export's entries are).
    if (v.method === 'log' || v.method === 'crashlog' || v.method === 'rebootLog') {
      const { serial: _serial, ...params } = p;
      return { file, kind: 'log', serial, body: { method: v.method, params } };
    }
    return `frame method ${JSON.stringify(v.method)} is not connect, state, healthcheck, log, crashlog or rebootLog`;
  }
  const wrapped = parseSerial(v.serial) ?? parseSerial(v.serialNumber);
  if (wrapped && isObject(v.state)) return { file, kind: 'state', serial: wrapped, body: v.state, uuid: num(v.uuid) };
  if (wrapped && v.capabilities !== undefined) {
    const capabilities = objectOf(v.capabilities);
    return capabilities ? { file, kind: 'capabilities', serial: wrapped, body: capabilities } : 'capabilities is not a JSON object (or JSON text of one)';
  }
  if (wrapped && Array.isArray(v.values)) return exportedReports(file, wrapped, v.values, skip);
  const kind = classifyRaw(v);
  if (!kind) return 'not a state, healthcheck, capabilities or configuration document';
  const named = serialInName(basename(rel, '.json')) ?? serialInName(dirname(rel));
  return { file, kind, serial: wrapped ?? named, body: v, uuid: kind === 'config' ? num(v.uuid) : undefined };
}

/**
 * A serial for a capture that names none: 12 hex digits from a hash of `key`, made a locally
 * administered unicast MAC (first octet: bit 0 clear, bit 1 set), as an AP's own MAC is unicast
 * and a made-up one must not pass for a vendor's (OUI lookups) or for a multicast address.
 */
function derivedSerial(key: string): string {
  const bytes = createHash('sha1').update(`airtwin-import:${key}`).digest().subarray(0, 6);
  bytes[0] = (bytes[0]! & 0xfc) | 0x02;
  return bytes.toString('hex');
}

/** The band of a state radio as the RRM model reads it (its `band`, a list or text, else its frequency), else by its channel. */
function stateRadioBand(r: JsonObject): Band {
  const ch = num(r.channel) ?? 0;
  return radioBand(r, undefined) ?? (ch > 0 && ch <= 14 ? '2G' : '5G');
}

/** Channels of made-up capabilities: 2.4 GHz 1-11 and the 5 GHz channels without radar detection everywhere; all of 6 GHz. */
const CHANNELS: Record<Band, readonly number[]> = {
  '2G': [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
  '5G': [36, 40, 44, 48, 149, 153, 157, 161, 165],
  '6G': ALL_CHANNELS['6G'],
};

/**
 * Capabilities good enough for the actor and RRM when a capture has none: each state radio's
 * band and channels, keyed by its `phy` as an AP's own capabilities are (the RRM model finds a
 * radio's band through that key: under `radio0` it found none and planned nothing).
 */
function capabilitiesFromState(state: JsonObject | undefined): JsonObject {
  const wifi: JsonObject = {};
  const radios = Array.isArray(state?.radios) ? state.radios : [];
  radios.forEach((r, i) => {
    if (!isObject(r)) return;
    const ch = num(r.channel) ?? 0;
    const band = stateRadioBand(r);
    const channels = CHANNELS[band];
    const key = typeof r.phy === 'string' && r.phy !== '' && wifi[r.phy] === undefined ? r.phy : `radio${i}`;
    wifi[key] = { band: [band], channels: channels.includes(ch) || ch === 0 ? channels : [...channels, ch].sort((a, b) => a - b) };
  });
  return { compatible: 'imported', model: 'imported', platform: 'ap', wifi };
}

/**
 * Documents into devices. Reports (states, healthchecks, logs) go to their serial, or to their
 * folder's derived one. A capabilities or configuration file that names no serial joins its
 * folder's device when the folder's reports are of one device (named in their file names or
 * not), else the folder's one unnamed capabilities file's device; a further capabilities file is a
 * device of its own, and a configuration with no device to join gives its folder's derived one.
 */
function devicesOf(dir: string, docs: Doc[]): Device[] {
  const bySerial = new Map<string, Device>();
  const device = (serial: string) => {
    let d = bySerial.get(serial);
    if (!d) bySerial.set(serial, (d = { serial, reports: [] }));
    return d;
  };
  const derivedOfFolder = (doc: Doc) => derivedSerial(relative(dir, dirname(doc.file)) || '.');
  /** Serials of each folder's reports, and of the devices its unnamed capabilities files made. */
  const reportSerials = new Map<string, Set<string>>();
  const capsSerials = new Map<string, string[]>();
  for (const doc of docs) {
    if (doc.kind === 'capabilities' || doc.kind === 'config') continue;
    const d = device(doc.serial ?? derivedOfFolder(doc));
    d.reports.push(doc);
    if (doc.uuid !== undefined) d.uuid ??= doc.uuid;
    const folder = dirname(doc.file);
    reportSerials.set(folder, (reportSerials.get(folder) ?? new Set()).add(d.serial));
  }
  /** The one device a folder's reports are of, if they are of exactly one. */
  const folderDevice = (doc: Doc): string | undefined => {
    const serials = reportSerials.get(dirname(doc.file));
    return serials?.size === 1 ? [...serials][0] : undefined;
  };
  for (const doc of docs) {
    if (doc.kind !== 'capabilities') continue;
    const joined = doc.serial === undefined ? folderDevice(doc) : undefined;
    const d = joined !== undefined && !bySerial.get(joined)!.capabilities ? device(joined) : device(doc.serial ?? derivedSerial(relative(dir, doc.file)));
    d.capabilities ??= doc.body;
    if (doc.uuid !== undefined) d.uuid ??= doc.uuid;
    if (doc.firmware !== undefined) d.firmware ??= doc.firmware;
    if (doc.serial === undefined) {
      const folder = dirname(doc.file);
      capsSerials.set(folder, [...(capsSerials.get(folder) ?? []), d.serial]);
    }
  }
  for (const doc of docs) {
    if (doc.kind !== 'config') continue;
    const caps = capsSerials.get(dirname(doc.file));
    const serial = doc.serial ?? folderDevice(doc) ?? (caps?.length === 1 ? caps[0]! : derivedOfFolder(doc));
    device(serial).uuid ??= doc.uuid;
  }
  // Exported time, else the AP's own clock (seconds), in ms.
  const when = (d: Doc) => d.recordedMs ?? ((isObject(d.body.unit) ? num(d.body.unit.localtime) : undefined) ?? Infinity) * 1000;
  for (const d of bySerial.values()) d.reports.sort((a, b) => when(a) - when(b) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return [...bySerial.values()].sort((a, b) => (a.serial < b.serial ? -1 : 1));
}

/** The BSSIDs of a state's SSIDs, the AP's own radio addresses (lower case, colons). */
function stateBssids(state: JsonObject): string[] {
  const out: string[] = [];
  for (const i of Array.isArray(state.interfaces) ? state.interfaces : []) {
    if (!isObject(i) || !Array.isArray(i.ssids)) continue;
    for (const ssid of i.ssids) if (isObject(ssid) && typeof ssid.bssid === 'string' && ssid.bssid !== '') out.push(ssid.bssid.toLowerCase());
  }
  return out;
}

/**
 * Folders whose states name no serial yet fall apart into groups that share no BSSID: likely
 * several APs, which the import makes one (a folder is one AP unless its files name serials).
 * Said, not acted on: an AP reconfigured between two captures can change every BSSID.
 * Each group is listed by its files (relative to `dir`, in path order).
 */
function foldersOfSeveralAps(dir: string, docs: Doc[]): { folder: string; groups: string[][] }[] {
  const byFolder = new Map<string, Doc[]>();
  for (const d of docs) {
    if (d.kind !== 'state' || d.serial !== undefined) continue;
    const folder = dirname(d.file);
    const states = byFolder.get(folder);
    if (states) states.push(d);
    else byFolder.set(folder, [d]);
  }
  const out: { folder: string; groups: string[][] }[] = [];
  for (const [folder, states] of byFolder) {
    // Groups by a shared BSSID: a state joins the group it shares one with, and groups it links
    // become one (into the biggest, so a year of one AP's states is not copied at each state).
    let groups: { bssids: Set<string>; files: string[] }[] = [];
    for (const st of states) {
      const mine = stateBssids(st.body);
      if (mine.length === 0) continue;
      const sharing = groups.filter((g) => mine.some((b) => g.bssids.has(b))).sort((x, y) => y.files.length - x.files.length);
      const into = sharing[0] ?? { bssids: new Set<string>(), files: [] };
      if (sharing.length === 0) groups.push(into);
      for (const b of mine) into.bssids.add(b);
      into.files.push(relative(dir, st.file));
      for (const g of sharing.slice(1)) {
        for (const b of g.bssids) into.bssids.add(b);
        for (const f of g.files) into.files.push(f);
      }
      if (sharing.length > 1) groups = groups.filter((g) => !sharing.includes(g) || g === into);
    }
    if (groups.length > 1) out.push({ folder: relative(dir, folder) || '.', groups: groups.map((g) => g.files.sort(byPath)).sort((a, b) => byPath(a[0]!, b[0]!)) });
  }
  return out.sort((a, b) => byPath(a.folder, b.folder));
}

function frameLine(t: number, serial: string, method: string, params: JsonObject): { t: number; text: string } {
  return { t, text: `{"t":${t},"serial":"${serial}","dir":"up","frame":${JSON.stringify({ jsonrpc: '2.0', method, params })}}` };
}

export async function runRecordImport(opts: RecordImportOptions, out?: NodeJS.WritableStream): Promise<RecordImportSummary> {
  const start = opts.startMs ?? DEFAULT_START_MS;
  const interval = opts.intervalMs ?? 60_000;
  const skipped: RecordImportSummary['skipped'] = [];
  const docs: Doc[] = [];
  // API answers saved one by one overlap (two date ranges, all logs and then the crash logs):
  // an entry that an earlier file held is not imported again. Within one answer, equal entries
  // are entries of their own (two equal log lines in one second).
  const exportedIn = new Map<string, string>();
  const firstSeen = (d: Doc): boolean => {
    // A digest, not the text: a year of states would be gigabytes of keys.
    const key = createHash('sha1').update(JSON.stringify([d.serial, d.kind, d.recordedMs, d.uuid, d.body])).digest('base64');
    const first = exportedIn.get(key);
    if (first === undefined) exportedIn.set(key, d.file);
    return first === undefined || first === d.file;
  };
  if (!existsSync(opts.fromStates)) throw new ConfigError(`--from-states: ${opts.fromStates} does not exist`);
  if (!statSync(opts.fromStates).isDirectory()) throw new ConfigError(`--from-states: ${opts.fromStates} is not a folder`);
  // A folder that is missing or not writable is a usage error, found before any document is read.
  checkWritableFile('--out', opts.out);
  const files = jsonFiles(opts.fromStates, skipped);
  // --out inside the folder, named like a capture: writing it would replace that capture.
  const overwritten = files.find((f) => sameFile(f, opts.out));
  if (overwritten) throw new ConfigError(`--out: ${opts.out} is ${relative(opts.fromStates, overwritten)}, one of the documents being imported`);
  for (const file of files) {
    const rel = relative(opts.fromStates, file);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      skipped.push({ file: rel, reason: `cannot read (${fsCode(e)})` });
      continue;
    }
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      skipped.push({ file: rel, reason: `not JSON (${(e as Error).message})` });
      continue;
    }
    const doc = classify(file, rel, v, (reason) => skipped.push({ file: rel, reason }));
    if (typeof doc === 'string') skipped.push({ file: rel, reason: doc });
    else docs.push(...(Array.isArray(doc) ? doc.filter(firstSeen) : [doc]));
  }
  const devices = devicesOf(opts.fromStates, docs);
  if (devices.length === 0) {
    // A wrong folder must not look like success: say why each file was passed over, write nothing.
    for (const s of skipped) out?.write(skippedLine(s));
    throw new NothingToRecordError(opts.fromStates, skipped.length);
  }
  const warnings = foldersOfSeveralAps(opts.fromStates, docs).map(({ folder, groups }) =>
    `record: the states in ${printable(folder === '.' ? './' : `${folder}/`)} look like ${groups.length} APs (no BSSID in common: ${groups.map((g) => printable(g.join(', '))).join(' | ')}); `
    + 'they are imported as one device, as a folder is one AP: put each AP\'s states in a folder of its own, or name its serial in the file or folder name');
  for (const w of warnings) out?.write(`${w}\n`);
  const lines: { t: number; dev: number; seq: number; text: string }[] = [];
  // Exported times when every report of every device has one, else the synthetic spacing for
  // all: one time base per file (mixing 2023 and this year, a paced replay would wait a year).
  const reports = devices.flatMap((d) => d.reports);
  const exported = reports.length > 0 && reports.every((r) => r.recordedMs !== undefined);
  // A device with no report (capabilities alone) connects with the first exported report.
  const firstExported = reports.reduce((m, r) => Math.min(m, r.recordedMs ?? Infinity), Infinity);
  const untimed = reports.find((r) => r.recordedMs === undefined);
  if (untimed && firstExported !== Infinity) {
    // Said, not silent: the exported times are dropped for the whole file.
    const timed = reports.filter((r) => r.recordedMs !== undefined).length;
    out?.write(`record: ${timed} of ${reports.length} reports carry their recorded time, the others (${printable(relative(opts.fromStates, untimed.file))} first) do not: `
      + `all are on made-up times from ${new Date(start).toISOString()}, one every ${interval / 1000} s (import the exports alone to keep their times)\n`);
  }
  devices.forEach((d, dev) => {
    const uuid = d.uuid ?? 1;
    const at = exported ? d.reports[0]?.recordedMs ?? firstExported : start + dev * 1000;
    const firstState = d.reports.find((r) => r.kind === 'state')?.body;
    const capabilities = d.capabilities ?? capabilitiesFromState(firstState);
    let seq = 0;
    const push = (l: { t: number; text: string }) => lines.push({ ...l, dev, seq: seq++ });
    push({ t: at, text: `{"t":${at},"serial":"${d.serial}","event":"connect"}` });
    push(frameLine(at, d.serial, 'connect', { serial: d.serial, uuid, firmware: d.firmware ?? 'imported', capabilities }));
    d.reports.forEach((r, i) => {
      const t = exported ? r.recordedMs! : at + (i + 1) * interval;
      if (r.kind === 'log') push(frameLine(t, d.serial, String(r.body.method), { serial: d.serial, ...(r.body.params as JsonObject) }));
      else if (r.kind === 'state') push(frameLine(t, d.serial, 'state', { serial: d.serial, uuid: r.uuid ?? uuid, state: r.body }));
      else push(frameLine(t, d.serial, 'healthcheck', { serial: d.serial, uuid: r.uuid ?? uuid, sanity: num(r.body.sanity) ?? 100, data: isObject(r.body.data) ? r.body.data : {} }));
    });
  });
  lines.sort((a, b) => a.t - b.t || a.dev - b.dev || a.seq - b.seq);
  // The import is written now: an earlier recording's parts (FILE.1, ...) left next to it would
  // be replayed as its own. What it replaces is said, as `serve --record` does.
  const earlier = regularFileBytes(opts.out);
  const parts = earlierParts(opts.out).length;
  if (earlier > 0 || parts > 0) {
    out?.write(`record: replacing an earlier ${opts.out} (${earlier} bytes${parts > 0 ? `, and ${parts} later part${parts === 1 ? '' : 's'}` : ''})\n`);
  }
  try {
    removeParts(opts.out);
  } catch (e) {
    throw new RecordingError(opts.out, e);
  }
  // A write that fails later (disk full) is one line naming the file, as for --record elsewhere.
  const writer = ndjsonFileWriter(opts.out);
  try {
    for (const l of lines) {
      const wait = writer.write(l.text);
      if (wait) await wait;
    }
    await writer.close();
  } catch (e) {
    await writer.close().catch(() => undefined);
    throw new RecordingError(opts.out, e);
  }
  out?.write(`record: ${devices.length} device${devices.length === 1 ? '' : 's'}, ${lines.length} lines from ${opts.fromStates} -> ${opts.out}\n`);
  for (const s of skipped) out?.write(skippedLine(s));
  return { devices: devices.length, lines: lines.length, skipped, timeBase: exported ? 'recorded' : 'synthetic', warnings };
}
