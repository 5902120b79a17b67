import { describe, expect, it } from 'vitest';
import { FileWaits, uploadTypeOf } from '../../../actors/file-waits.js';
import { blankCommand } from '../../../actors/device/command-lifecycle.js';
import type { Command } from '../../../actors/device/device.types.js';
import { VirtualClock } from '../../../simulator/clock.js';

const SERIAL = 'a0b1c2000001';
const UUID = '11111111-2222-4333-8444-555555555555';

function setup(windowMs = 60_000) {
  const clock = new VirtualClock(1_700_000_000_000);
  const changed: Command[] = [];
  const waits = new FileWaits({ clock, windowMs, changed: (c) => changed.push(c) });
  const created = { ...blankCommand({ UUID, command: 'trace', serialNumber: SERIAL, submitted: 1_700_000_000, submittedBy: 't', details: '{}' }), waitingForFile: 1, attachType: 'pcap' };
  const executed: Command = { ...created, status: 'executed', executed: 1_700_000_000 };
  const replied: Command = { ...executed, status: 'completed', completed: 1_700_000_010, results: '{"status":{"error":0}}' };
  return { clock, changed, waits, created, executed, replied };
}

describe('FileWaits', () => {
  it('holds a replied command executed until its file arrives, then completes it with the attachment', () => {
    const { waits, changed, created, executed, replied, clock } = setup();
    expect(waits.adjust(created, true)).toBe(created);
    expect(waits.adjust(executed, false)).toBe(executed);
    expect(waits.adjust(replied, false)).toMatchObject({ status: 'executed', waitingForFile: 1, results: replied.results });
    expect(waits.claim(UUID, SERIAL)).toEqual({ type: 'pcap', serial: SERIAL });
    clock.increment(5_000);
    waits.arrived(UUID, 1234);
    expect(changed).toEqual([expect.objectContaining({ status: 'completed', waitingForFile: 0, attachSize: 1234, attachType: 'pcap', attachFile: 1_700_000_005 })]);
    expect(waits.claim(UUID, SERIAL)).toBe('done');
    expect(waits.size).toBe(0);
  });

  it('completes with the reply when the file came first', () => {
    const { waits, changed, created, executed, replied } = setup();
    waits.adjust(created, true);
    waits.adjust(executed, false);
    expect(waits.claim(UUID, undefined)).toMatchObject({ type: 'pcap' });
    waits.arrived(UUID, 99);
    expect(waits.adjust(replied, false)).toMatchObject({ status: 'completed', waitingForFile: 0, attachSize: 99 });
    expect(changed).toEqual([]);
  });

  it('fails the command, saying why, when the file does not come within the window after the reply (virtual time)', () => {
    const { waits, changed, created, replied, clock } = setup(60_000);
    waits.adjust(created, true);
    waits.adjust(replied, false);
    clock.increment(59_999);
    expect(changed).toEqual([]);
    clock.increment(1);
    expect(changed).toEqual([expect.objectContaining({ status: 'failed', waitingForFile: 0, errorText: expect.stringMatching(/did not upload the file .* within 60 s/) })]);
    expect(waits.claim(UUID, SERIAL)).toBe('unexpected');
  });

  it('refuses another serial, a second upload while one runs, and commands that ended', () => {
    const { waits, created, replied } = setup();
    waits.adjust(created, true);
    expect(waits.claim(UUID, 'a0b1c2000002')).toBe('unexpected');
    expect(waits.claim(UUID, SERIAL)).not.toBeTypeOf('string');
    expect(waits.claim(UUID, SERIAL)).toBe('busy');
    waits.release(UUID);
    expect(waits.claim(UUID, SERIAL)).not.toBeTypeOf('string');
    waits.release(UUID);
    expect(waits.adjust({ ...replied, status: 'failed', errorCode: 2 }, false)).toMatchObject({ status: 'failed', waitingForFile: 0 });
    expect(waits.claim(UUID, SERIAL)).toBe('unexpected');
    expect(waits.claim('99999999-2222-4333-8444-555555555555', SERIAL)).toBe('unexpected');
  });

  it('keeps a file that came before the AP timed out attached to the failed record', () => {
    const { waits, created, executed } = setup();
    waits.adjust(created, true);
    waits.adjust(executed, false);
    waits.claim(UUID, SERIAL);
    waits.arrived(UUID, 7);
    expect(waits.adjust({ ...executed, status: 'timedout' }, false)).toMatchObject({ status: 'timedout', waitingForFile: 0, attachSize: 7, attachType: 'pcap' });
  });

  it('types the upload: pcap for trace, txt for a shell script, tgz for the rest', () => {
    expect(uploadTypeOf({ command: 'trace', details: '{}' })).toBe('pcap');
    expect(uploadTypeOf({ command: 'script', details: '{"type":"shell"}' })).toBe('txt');
    expect(uploadTypeOf({ command: 'script', details: '{"type":"diagnostic"}' })).toBe('tgz');
  });
});
