import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runRecordImport } from '../../../src/commands/record-import.js';
import { recordingParts } from '../../../src/commands/replay-input.js';
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
    await runRecordImport({ fromStates: src, out }, printedTo().out);
    expect(readdirSync(join(dir, 'parts')).sort()).toEqual(['imp.ndjson', 'imp.ndjson.bak']);
    expect(recordingParts(out)).toEqual([out]);
    expect(partsAfterGap(out)).toEqual([]);
    expect(readFileSync(out, 'utf8')).toContain('a0b1c2000002');
  });
});
