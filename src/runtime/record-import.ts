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
import { existsSync, readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { checkWritableFile, ConfigError, sameFile } from '../config/flags.js';
import { isObject, type JsonObject } from '../protocol/frame.js';
import { earlierParts, ndjsonFileWriter, RecordingError, regularFileBytes, removeParts } from '../links/record/ndjson-writer.js';
import { printable } from '../links/replay/read-recording.js';
import { capabilitiesFromState, devicesOf, foldersOfSeveralAps, type Device } from './record-import-devices.js';
import { classify, num, type Doc } from './record-import-documents.js';
import { fsCode, jsonFiles, type Skipped } from './record-import-files.js';

export interface RecordImportOptions {
  fromStates: string;
  out: string;
  /** Time of the first connect (epoch ms). Default 2023-11-14T22:13:20Z, a fixed point. */
  startMs?: number;
  /** Time between a device's reports (default 60 s). */
  intervalMs?: number;
}

/** One skipped file as printed; a file's name and a parse error's quote of it may hold terminal control bytes. */
const skippedLine = (s: Skipped): string => `record: skipped ${printable(s.file)}: ${printable(s.reason)}\n`;

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
  skipped: Skipped[];
  /** The exported `recorded` times of the reports, or the made-up spacing (some or all had none). */
  timeBase: 'recorded' | 'synthetic';
  /** What the import did that may not be what was meant, as printed (e.g. a folder whose states look like several APs). */
  warnings: string[];
}

const DEFAULT_START_MS = 1_700_000_000_000;

function frameLine(t: number, serial: string, method: string, params: JsonObject): { t: number; text: string } {
  return { t, text: `{"t":${t},"serial":"${serial}","dir":"up","frame":${JSON.stringify({ jsonrpc: '2.0', method, params })}}` };
}

/** The files to import; a usage error when the folder or `--out` is not usable, found before any document is read. */
function importedFiles(opts: RecordImportOptions, skipped: Skipped[]): string[] {
  if (!existsSync(opts.fromStates)) throw new ConfigError(`--from-states: ${opts.fromStates} does not exist`);
  if (!statSync(opts.fromStates).isDirectory()) throw new ConfigError(`--from-states: ${opts.fromStates} is not a folder`);
  checkWritableFile('--out', opts.out);
  const files = jsonFiles(opts.fromStates, skipped);
  // --out inside the folder, named like a capture: writing it would replace that capture.
  const overwritten = files.find((f) => sameFile(f, opts.out));
  if (overwritten) throw new ConfigError(`--out: ${opts.out} is ${relative(opts.fromStates, overwritten)}, one of the documents being imported`);
  return files;
}

/**
 * The documents of `files`. API answers saved one by one overlap (two date ranges, all logs and
 * then the crash logs): an entry that an earlier file held is not imported again. Within one
 * answer, equal entries are entries of their own (two equal log lines in one second).
 */
function readDocuments(dir: string, files: readonly string[], skipped: Skipped[]): Doc[] {
  const docs: Doc[] = [];
  const exportedIn = new Map<string, string>();
  const firstSeen = (d: Doc): boolean => {
    // A digest, not the text: a year of states would be gigabytes of keys.
    const key = createHash('sha1').update(JSON.stringify([d.serial, d.kind, d.recordedMs, d.uuid, d.body])).digest('base64');
    const first = exportedIn.get(key);
    if (first === undefined) exportedIn.set(key, d.file);
    return first === undefined || first === d.file;
  };
  for (const file of files) {
    const rel = relative(dir, file);
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
  return docs;
}

/** What is printed about folders whose states look like several APs. */
function severalApsWarnings(dir: string, docs: Doc[]): string[] {
  return foldersOfSeveralAps(dir, docs).map(({ folder, groups }) =>
    `record: the states in ${printable(folder === '.' ? './' : `${folder}/`)} look like ${groups.length} APs (no BSSID in common: ${groups.map((g) => printable(g.join(', '))).join(' | ')}); `
    + 'they are imported as one device, as a folder is one AP: put each AP\'s states in a folder of its own, or name its serial in the file or folder name');
}

/** The times of the lines: each report's exported time (`exported`), or made-up ones from `start`, `interval` apart. */
interface TimeBase {
  exported: boolean;
  /** The first exported time: a device with no report (capabilities alone) connects then. */
  firstExported: number;
  start: number;
  interval: number;
}

/**
 * Exported times when every report of every device has one, else the synthetic spacing for all:
 * one time base per file (mixing 2023 and this year, a paced replay would wait a year). Dropping
 * some exported times is said, not silent.
 */
function timeBaseOf(devices: Device[], opts: RecordImportOptions, out: NodeJS.WritableStream | undefined): TimeBase {
  const start = opts.startMs ?? DEFAULT_START_MS;
  const interval = opts.intervalMs ?? 60_000;
  const reports = devices.flatMap((d) => d.reports);
  const exported = reports.length > 0 && reports.every((r) => r.recordedMs !== undefined);
  const firstExported = reports.reduce((m, r) => Math.min(m, r.recordedMs ?? Infinity), Infinity);
  const untimed = reports.find((r) => r.recordedMs === undefined);
  if (untimed && firstExported !== Infinity) {
    const timed = reports.filter((r) => r.recordedMs !== undefined).length;
    out?.write(`record: ${timed} of ${reports.length} reports carry their recorded time, the others (${printable(relative(opts.fromStates, untimed.file))} first) do not: `
      + `all are on made-up times from ${new Date(start).toISOString()}, one every ${interval / 1000} s (import the exports alone to keep their times)\n`);
  }
  return { exported, firstExported, start, interval };
}

/** The recording's lines in time order: each device's connect, then its reports. */
function recordingLines(devices: Device[], base: TimeBase): string[] {
  const lines: { t: number; dev: number; seq: number; text: string }[] = [];
  devices.forEach((d, dev) => {
    const uuid = d.uuid ?? 1;
    const at = base.exported ? d.reports[0]?.recordedMs ?? base.firstExported : base.start + dev * 1000;
    const firstState = d.reports.find((r) => r.kind === 'state')?.body;
    const capabilities = d.capabilities ?? capabilitiesFromState(firstState);
    let seq = 0;
    const push = (l: { t: number; text: string }) => lines.push({ ...l, dev, seq: seq++ });
    push({ t: at, text: `{"t":${at},"serial":"${d.serial}","event":"connect"}` });
    push(frameLine(at, d.serial, 'connect', { serial: d.serial, uuid, firmware: d.firmware ?? 'imported', capabilities }));
    d.reports.forEach((r, i) => {
      const t = base.exported ? r.recordedMs! : at + (i + 1) * base.interval;
      if (r.kind === 'log') push(frameLine(t, d.serial, String(r.body.method), { serial: d.serial, ...(r.body.params as JsonObject) }));
      else if (r.kind === 'state') push(frameLine(t, d.serial, 'state', { serial: d.serial, uuid: r.uuid ?? uuid, state: r.body }));
      else push(frameLine(t, d.serial, 'healthcheck', { serial: d.serial, uuid: r.uuid ?? uuid, sanity: num(r.body.sanity) ?? 100, data: isObject(r.body.data) ? r.body.data : {} }));
    });
  });
  return lines.sort((a, b) => a.t - b.t || a.dev - b.dev || a.seq - b.seq).map((l) => l.text);
}

/**
 * Writes `lines` to `path`. An earlier recording's parts (FILE.1, ...) left next to it would be
 * replayed as its own: they are removed, and what is replaced is said, as `serve --record` does.
 * A write that fails (disk full) is one RecordingError naming the file, as for --record elsewhere.
 */
async function writeRecording(path: string, lines: readonly string[], out: NodeJS.WritableStream | undefined): Promise<void> {
  const earlier = regularFileBytes(path);
  const parts = earlierParts(path).length;
  if (earlier > 0 || parts > 0) {
    out?.write(`record: replacing an earlier ${path} (${earlier} bytes${parts > 0 ? `, and ${parts} later part${parts === 1 ? '' : 's'}` : ''})\n`);
  }
  try {
    removeParts(path);
  } catch (e) {
    throw new RecordingError(path, e);
  }
  const writer = ndjsonFileWriter(path);
  try {
    for (const text of lines) {
      const wait = writer.write(text);
      if (wait) await wait;
    }
    await writer.close();
  } catch (e) {
    await writer.close().catch(() => undefined);
    throw new RecordingError(path, e);
  }
}

export async function runRecordImport(opts: RecordImportOptions, out?: NodeJS.WritableStream): Promise<RecordImportSummary> {
  const skipped: Skipped[] = [];
  const docs = readDocuments(opts.fromStates, importedFiles(opts, skipped), skipped);
  const devices = devicesOf(opts.fromStates, docs);
  if (devices.length === 0) {
    // A wrong folder must not look like success: say why each file was passed over, write nothing.
    for (const s of skipped) out?.write(skippedLine(s));
    throw new NothingToRecordError(opts.fromStates, skipped.length);
  }
  const warnings = severalApsWarnings(opts.fromStates, docs);
  for (const w of warnings) out?.write(`${w}\n`);
  const base = timeBaseOf(devices, opts, out);
  const lines = recordingLines(devices, base);
  await writeRecording(opts.out, lines, out);
  out?.write(`record: ${devices.length} device${devices.length === 1 ? '' : 's'}, ${lines.length} lines from ${opts.fromStates} -> ${opts.out}\n`);
  for (const s of skipped) out?.write(skippedLine(s));
  return { devices: devices.length, lines: lines.length, skipped, timeBase: base.exported ? 'recorded' : 'synthetic', warnings };
}
