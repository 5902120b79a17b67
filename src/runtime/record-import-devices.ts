/**
 * Documents into devices for `airtwin record --from-states` (record-import.ts): which device
 * each document is of, capabilities for a device with none, and folders that look like several
 * APs.
 */
import { createHash } from 'node:crypto';
import { dirname, relative } from 'node:path';
import { isObject, type JsonObject } from '../protocol/frame.js';
import { ALL_CHANNELS, type Band } from '../protocol/wifi-channels.js';
import { radioBand } from '../rrm/model/band.js';
import { byPath } from './record-import-files.js';
import { num, type Doc } from './record-import-documents.js';

/** A device of the import: its reports in the order they are played. */
export interface Device { serial: string; capabilities?: JsonObject; uuid?: number; firmware?: string; reports: Doc[] }

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
export function capabilitiesFromState(state: JsonObject | undefined): JsonObject {
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
export function devicesOf(dir: string, docs: Doc[]): Device[] {
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
export function foldersOfSeveralAps(dir: string, docs: Doc[]): { folder: string; groups: string[][] }[] {
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
