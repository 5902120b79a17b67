import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runRecordImport } from '../../../src/runtime/record-import.js';
import { recordingParts } from '../../../src/runtime/replay-input.js';
import { partsAfterGap } from '../../../src/links/record/ndjson-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'airtwin-import-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const frame = (serial: string) => JSON.stringify({ jsonrpc: '2.0', method: 'state', params: { serial, uuid: 1, state: { unit: { uptime: 10 }, radios: [] } } });
const put = (path: string, text: string) => {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
};
/** A sink that keeps what was printed. */
const printedTo = () => {
  const out = new PassThrough();
  let text = '';
  out.on('data', (d: Buffer) => { text += d.toString(); });
  return { out, text: () => text };
};

describe('record --from-states: serials of captures that name none', () => {
  it('derives a locally administered unicast MAC for each folder, never a multicast one', async () => {
    const src = join(dir, 'unnamed');
    const folders = Array.from({ length: 40 }, (_, i) => `site-${i}`);
    for (const f of folders) put(join(src, f, 'state.json'), JSON.stringify({ unit: { uptime: 10 }, radios: [], interfaces: [] }));
    const out = join(dir, 'unnamed.ndjson');
    const summary = await runRecordImport({ fromStates: src, out }, printedTo().out);
    expect(summary.devices).toBe(folders.length);
    const serials = new Set(readFileSync(out, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { serial: string }).serial));
    expect(serials.size).toBe(folders.length);
    for (const serial of serials) {
      expect(serial).toMatch(/^[0-9a-f]{12}$/);
      const first = Number.parseInt(serial.slice(0, 2), 16);
      expect({ serial, multicast: first & 1, local: first & 2 }).toEqual({ serial, multicast: 0, local: 2 });
    }
  });
});

/** The lines of a recording, parsed. */
const linesOf = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as {
  serial: string; event?: string; frame?: { method: string; params: Record<string, unknown> & { capabilities?: { compatible?: string; wifi?: Record<string, { band: string[]; channels: number[] }> } } };
});
const rawState = (radios: object[]) => JSON.stringify({ unit: { uptime: 10, localtime: 1_700_000_000 }, radios, interfaces: [] });
const rawCaps = (compatible: string) => JSON.stringify({ compatible, platform: 'ap', wifi: { 'platform/soc/c000000.wifi': { band: ['5G'], channels: [36, 40] } } });
const rawConfig = (uuid: number) => JSON.stringify({ uuid, radios: [{ band: '5G', channel: 'auto' }], interfaces: [], services: {} });

describe('record --from-states: which device a capture is of', () => {
  it('takes a time stamp in a file name for a time, not a serial: one folder, one AP', async () => {
    const src = join(dir, 'stamped');
    put(join(src, 'ap1', 'state-202404011200.json'), rawState([{ channel: 36 }]));
    put(join(src, 'ap1', 'state_240401120100.json'), rawState([{ channel: 40 }]));
    put(join(src, 'ap1', 'capabilities.json'), rawCaps('edgecore_eap101'));
    const out = join(dir, 'stamped.ndjson');
    const summary = await runRecordImport({ fromStates: src, out }, printedTo().out);
    expect(summary.devices).toBe(1);
    const lines = linesOf(out);
    expect(new Set(lines.map((l) => l.serial)).size).toBe(1);
    expect(lines.filter((l) => l.frame?.method === 'state')).toHaveLength(2);
    expect(lines.find((l) => l.frame?.method === 'connect')!.frame!.params.capabilities!.compatible).toBe('edgecore_eap101');
  });

  it('joins a folder\'s capabilities and configuration to the one AP its reports are of, named in their file names or not', async () => {
    const src = join(dir, 'joined');
    put(join(src, 'ap2', '903cb3bb1c9a-state.json'), rawState([{ channel: 36 }]));
    put(join(src, 'ap2', 'capabilities.json'), rawCaps('edgecore_eap102'));
    put(join(src, 'ap2', 'config.json'), rawConfig(1656004318));
    // No reports at all: the capabilities file's device takes the configuration.
    put(join(src, 'ap3', 'capabilities.json'), rawCaps('edgecore_eap101'));
    put(join(src, 'ap3', 'config.json'), rawConfig(1656000003));
    const out = join(dir, 'joined.ndjson');
    const summary = await runRecordImport({ fromStates: src, out }, printedTo().out);
    expect(summary.devices).toBe(2);
    const connects = linesOf(out).filter((l) => l.frame?.method === 'connect').map((l) => ({ serial: l.serial, uuid: l.frame!.params.uuid, compatible: l.frame!.params.capabilities!.compatible }));
    expect(connects).toContainEqual({ serial: '903cb3bb1c9a', uuid: 1656004318, compatible: 'edgecore_eap102' });
    expect(connects).toContainEqual({ serial: expect.stringMatching(/^[0-9a-f]{12}$/), uuid: 1656000003, compatible: 'edgecore_eap101' });
  });

  it('keeps the firmware a captured connect frame names, and imports log frames as sent', async () => {
    const src = join(dir, 'frames');
    const S = '903cb3bb1c9b';
    put(join(src, 'connect.json'), JSON.stringify({ jsonrpc: '2.0', method: 'connect', params: { serial: S, uuid: 7, firmware: 'OpenWrt 21.02 / TIP-v2.9.0-36f3a5a', capabilities: { compatible: 'edgecore_eap101', platform: 'ap', wifi: {} } } }));
    put(join(src, 'state.json'), frame(S));
    put(join(src, 'log.json'), JSON.stringify({ jsonrpc: '2.0', method: 'log', params: { serial: S, log: 'dhcp lease renewed', severity: 5, data: {} } }));
    const out = join(dir, 'frames.ndjson');
    const summary = await runRecordImport({ fromStates: src, out }, printedTo().out);
    expect(summary.skipped).toEqual([]);
    const lines = linesOf(out);
    expect(lines.find((l) => l.frame?.method === 'connect')!.frame!.params.firmware).toBe('OpenWrt 21.02 / TIP-v2.9.0-36f3a5a');
    expect(lines.filter((l) => l.frame?.method === 'log').map((l) => l.frame!.params)).toEqual([{ serial: S, log: 'dhcp lease renewed', severity: 5, data: {} }]);
  });

  it('builds missing capabilities under each radio\'s phy, with its band from a band list, a frequency or the channel', async () => {
    const src = join(dir, 'nocaps');
    put(join(src, 'ap', 'state.json'), rawState([
      { phy: 'platform/soc/c000000.wifi', channel: 100, channel_width: '40' },
      { phy: 'platform/soc/c000000.wifi+1', channel: 6 },
      { phy: 'platform/soc/c000000.wifi+2', band: ['6G'], channel: 5, frequency: [5975] },
      { phy: 'platform/soc/c000000.wifi+3', channel: 37, frequency: [6135] },
    ]));
    const out = join(dir, 'nocaps.ndjson');
    await runRecordImport({ fromStates: src, out }, printedTo().out);
    const wifi = linesOf(out).find((l) => l.frame?.method === 'connect')!.frame!.params.capabilities!.wifi!;
    expect(Object.fromEntries(Object.entries(wifi).map(([phy, c]) => [phy, c.band]))).toEqual({
      'platform/soc/c000000.wifi': ['5G'], 'platform/soc/c000000.wifi+1': ['2G'], 'platform/soc/c000000.wifi+2': ['6G'], 'platform/soc/c000000.wifi+3': ['6G'],
    });
    expect(wifi['platform/soc/c000000.wifi']!.channels).toContain(100);
    expect(wifi['platform/soc/c000000.wifi+2']!.channels).toContain(5);
    expect(wifi['platform/soc/c000000.wifi+2']!.channels).toContain(233);
  });
});

describe('record --from-states: a folder whose states look like several APs', () => {
  const withBssids = (localtime: number, ...bssids: string[]) => JSON.stringify({
    unit: { uptime: 10, localtime }, radios: [{ channel: 36 }], interfaces: [{ name: 'up0v0', ssids: bssids.map((bssid) => ({ bssid, ssid: 'venue', band: '5G' })) }],
  });

  it('says so, naming the states of each, and still imports the folder as one AP', async () => {
    const src = join(dir, 'several-aps');
    // Two APs in one folder: a and c share a BSSID (a reboot later, one SSID more), b shares none.
    put(join(src, 'site', 'a.json'), withBssids(1_700_000_000, '90:3C:B3:BB:1C:9A', '90:3c:b3:bb:1c:9b'));
    put(join(src, 'site', 'b.json'), withBssids(1_700_000_100, '90:3c:b3:bb:1e:07'));
    put(join(src, 'site', 'c.json'), withBssids(1_700_000_200, '90:3c:b3:bb:1c:9b', '90:3c:b3:bb:1c:9c'));
    // A state with no SSID up says nothing either way.
    put(join(src, 'site', 'd.json'), rawState([{ channel: 36 }]));
    // One AP's states sharing a BSSID, and a named AP next to an unnamed one: nothing to say.
    put(join(src, 'one-ap', 'x.json'), withBssids(1_700_000_000, '02:00:00:00:00:01'));
    put(join(src, 'one-ap', 'y.json'), withBssids(1_700_000_100, '02:00:00:00:00:01', '02:00:00:00:00:02'));
    put(join(src, 'named', 'a0b1c2d3e4f5-state.json'), withBssids(1_700_000_000, '02:00:00:00:00:09'));
    put(join(src, 'named', 'state.json'), withBssids(1_700_000_100, '02:00:00:00:00:0a'));
    // Two groups that a third state links: one AP.
    put(join(src, 'linked', 'p.json'), withBssids(1_700_000_000, '02:00:00:00:00:11'));
    put(join(src, 'linked', 'q.json'), withBssids(1_700_000_100, '02:00:00:00:00:12'));
    put(join(src, 'linked', 'r.json'), withBssids(1_700_000_200, '02:00:00:00:00:12', '02:00:00:00:00:11'));
    const out = join(dir, 'several-aps.ndjson');
    const printed = printedTo();
    const summary = await runRecordImport({ fromStates: src, out }, printed.out);
    const warning = `record: the states in site/ look like 2 APs (no BSSID in common: site/a.json, site/c.json | site/b.json); `
      + 'they are imported as one device, as a folder is one AP: put each AP\'s states in a folder of its own, or name its serial in the file or folder name';
    expect(summary.warnings).toEqual([warning]);
    expect(printed.text().split('\n')).toContain(warning);
    // Said, not acted on: site is one device with its four states, as before.
    expect(summary.devices).toBe(5);
    const perSerial = new Map<string, number>();
    for (const l of linesOf(out)) if (l.frame?.method === 'state') perSerial.set(l.serial, (perSerial.get(l.serial) ?? 0) + 1);
    expect([...perSerial.values()].sort()).toEqual([1, 1, 2, 3, 4]);
    expect(perSerial.get('a0b1c2d3e4f5')).toBe(1);
  });
});

describe('record --from-states: files that are not .json', () => {
  it('imports .json in any case and lists every other file as skipped, hidden ones aside', async () => {
    const src = join(dir, 'mixed');
    put(join(src, 'STATE.JSON'), frame('a0b1c2000001'));
    put(join(src, 'notes.txt'), 'a note');
    put(join(src, 'sub', 'readme.md'), '# captures');
    put(join(src, '.DS_Store'), '');
    put(join(src, '.git', 'config'), '[core]');
    symlinkSync('user@host.42', join(src, '.#STATE.JSON')); // an editor's lock file
    const printed = printedTo();
    const summary = await runRecordImport({ fromStates: src, out: join(dir, 'mixed.ndjson') }, printed.out);
    expect(summary.devices).toBe(1);
    expect(summary.lines).toBe(3);
    expect(summary.skipped).toEqual([
      { file: 'notes.txt', reason: 'not a .json file' },
      { file: 'sub/readme.md', reason: 'not a .json file' },
    ]);
    expect(printed.text()).toContain('record: skipped notes.txt: not a .json file\n');
  });

  it('counts them in the error of a folder with nothing to import, and writes nothing', async () => {
    const src = join(dir, 'text-only');
    put(join(src, 'readme.txt'), 'nothing here');
    const printed = printedTo();
    const out = join(dir, 'text-only.ndjson');
    await expect(runRecordImport({ fromStates: src, out }, printed.out)).rejects.toMatchObject({
      name: 'NothingToRecordError',
      message: `${src} holds no state, healthcheck, capabilities or configuration document (1 files skipped): nothing recorded`,
    });
    expect(printed.text()).toBe('record: skipped readme.txt: not a .json file\n');
    expect(existsSync(out)).toBe(false);
  });
});

describe('record --from-states: links to folders', () => {
  it('writes the same recording with or without a link to a folder, whatever its name', async () => {
    const src = join(dir, 'linked');
    // Raw documents without a serial: the serials come from the folder paths.
    put(join(src, 'sub', 'state.json'), JSON.stringify({ unit: { localtime: 100, uptime: 10 }, radios: [] }));
    put(join(src, 'sub', 'capabilities.json'), JSON.stringify({ compatible: 'lab_ap', platform: 'ap', wifi: {} }));
    put(join(src, 'models', 'm.json'), JSON.stringify({ compatible: 'other_ap', platform: 'ap', wifi: {} }));
    mkdirSync(join(src, 'aa'));
    const plain = join(dir, 'plain.ndjson');
    const before = await runRecordImport({ fromStates: src, out: plain }, printedTo().out);
    // `latest` sorts before `sub`, `aa/current` before `models`.
    symlinkSync('sub', join(src, 'latest'));
    symlinkSync('../models', join(src, 'aa', 'current'));
    const linked = join(dir, 'linked.ndjson');
    const after = await runRecordImport({ fromStates: src, out: linked }, printedTo().out);
    expect(readFileSync(linked, 'utf8')).toBe(readFileSync(plain, 'utf8'));
    expect(after).toMatchObject({ devices: before.devices, lines: before.lines });
    expect(after.skipped).toEqual([
      { file: 'aa/current', reason: 'folder already read (a link to it or to a folder above it)' },
      { file: 'latest', reason: 'folder already read (a link to it or to a folder above it)' },
    ]);
  });
});

describe('record --from-states: parts of an earlier recording to --out', () => {
  it('removes them once it writes, so a replay reads the import alone', async () => {
    const src = join(dir, 'one');
    put(join(src, 'state.json'), frame('a0b1c2000002'));
    const out = join(dir, 'parts', 'imp.ndjson');
    const old = ['imp.ndjson', 'imp.ndjson.1', 'imp.ndjson.3.gz', 'imp.ndjson.bak'];
    for (const p of old) put(join(dir, 'parts', p), '{"t":1,"serial":"a0b1c2000009","event":"connect"}\n');
    // An import that writes nothing leaves them.
    await expect(runRecordImport({ fromStates: join(dir, 'text-only'), out }, printedTo().out)).rejects.toMatchObject({ name: 'NothingToRecordError' });
    expect(readdirSync(join(dir, 'parts')).sort()).toEqual(old);
    const printed = printedTo();
    await runRecordImport({ fromStates: src, out }, printed.out);
    // Said, as `serve --record` says what it replaces; one device is "1 device".
    expect(printed.text().split('\n').slice(0, 2)).toEqual([
      `record: replacing an earlier ${out} (50 bytes, and 2 later parts)`,
      `record: 1 device, 3 lines from ${src} -> ${out}`,
    ]);
    expect(readdirSync(join(dir, 'parts')).sort()).toEqual(['imp.ndjson', 'imp.ndjson.bak']);
    expect(recordingParts(out)).toEqual([out]);
    expect(partsAfterGap(out)).toEqual([]);
    expect(readFileSync(out, 'utf8')).toContain('a0b1c2000002');
  });
});
