import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { CommandService } from '../../../actors/command-service.js';
import { Fleet, type FleetEvent } from '../../../actors/fleet.js';
import { ScaledClock, VirtualClock } from '../../../simulator/clock.js';
import { wallClock } from '../../../src/protocol/clock.js';
import { recordedConnects } from '../../../src/links/replay/read-recording.js';
import { startReplay } from '../../../src/links/replay/replayer.js';
import { flush } from '../../helpers/fake-link.js';
import { MemoryCommandStore } from '../../helpers/memory-command-store.js';

const A = 'aabbccddee01';
const T = 1_767_600_000_000;
const dir = mkdtempSync(join(tmpdir(), 'airtwin-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const capabilities = { compatible: 'edgecore_eap101', platform: 'ap', wifi: {} };
const up = (t: number, frame: object, serial = A) => JSON.stringify({ t, serial, dir: 'up', frame });
const ev = (t: number, event: string, serial = A) => JSON.stringify({ t, serial, event });
/** A recorded command to A. */
const down = (t: number, id: number, method: string, params: object = { serial: A }) => JSON.stringify({ t, serial: A, dir: 'down', frame: { jsonrpc: '2.0', id, method, params } });
const connectFrame = { jsonrpc: '2.0', method: 'connect', params: { serial: A, uuid: 5, firmware: 'fw-1', capabilities } };
/** A's session opening: the connect event and its connect frame. */
const opening = (t = T) => [ev(t, 'connect'), up(t, connectFrame)];
const state = (n: number) => ({ jsonrpc: '2.0', method: 'state', params: { serial: A, uuid: 5, state: { unit: { uptime: n }, radios: [] } } });

function write(name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function setup() {
  const clock = new VirtualClock(T);
  let n = 0;
  const newId = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
  const fleet = new Fleet({ clock, newId });
  const events: FleetEvent[] = [];
  fleet.events$.subscribe((e) => events.push(e));
  return { clock, fleet, events, newId };
}

describe('startReplay: malformed lines', () => {
  it('skips and reports each bad line with its number and why, and plays the rest', async () => {
    const file = write('bad.ndjson', [
      ev(T, 'connect'), //                                                     1
      up(T, connectFrame), //                                                  2
      'this is not json', //                                                   3
      up(T + 1000, state(1), 'zz:not:a:serial'), //                            4
      JSON.stringify({ serial: A, dir: 'up', frame: state(1) }), //            5 no t
      JSON.stringify({ t: T + 1000, serial: A, dir: 'up' }), //                6 no frame
      up(T + 2000, state(2)), //                                               7
      up(T + 1500, state(3)), //                                               8 backwards
      JSON.stringify({ t: T + 3000, serial: A, dir: 'down', frame: { hello: 1 } }), // 9
      '', //                                                                   10 blank: not data
      '[1,2,3]', //                                                            11
      JSON.stringify({ t: T + 3000, serial: A, event: 'reboot' }), //          12
      up(T + 4000, state(4)), //                                               13
      up(1e20, state(5)), //                                                   14 past any Date
    ]);
    const { clock, fleet, events } = setup();
    const summary = await startReplay({ file, fleet, clock, speed: 'max' }).done;
    expect(summary.rejected.map((r) => r.line)).toEqual([3, 4, 5, 6, 8, 9, 11, 12, 14]);
    const why = Object.fromEntries(summary.rejected.map((r) => [r.line, r.reason]));
    expect(why[3]).toMatch(/not JSON/);
    expect(why[4]).toMatch(/serial .* is not 12 hex digits/);
    expect(why[5]).toMatch(/missing field t/);
    expect(why[6]).toMatch(/missing field frame/);
    expect(why[8]).toMatch(/t goes backwards/);
    expect(why[9]).toMatch(/down frame is not a command/);
    expect(why[11]).toMatch(/not a JSON object/);
    expect(why[12]).toMatch(/event must be connect or disconnect/);
    expect(why[14]).toBe('t is not a time in epoch ms: 100000000000000000000');
    expect(summary.rejectedCount).toBe(9);
    expect(summary.accepted).toBe(4);
    expect(summary.frames).toBe(3);
    expect(summary.durationMs).toBe(4000);
    expect(events.filter((e) => e.type === 'state').map((e) => (e.payload as unknown as { state: { unit: { uptime: number } } }).state.unit.uptime)).toEqual([2, 4]);
    expect(events.filter((e) => e.type === 'protocol-error')).toEqual([]);
  });
});

describe('startReplay: one line out of time order', () => {
  it('rejects a line 25 hours ahead alone and plays every line after it', async () => {
    const file = write('glitch.ndjson', [
      ev(T, 'connect'), //                       1
      up(T, connectFrame), //                    2
      up(T + 1000, state(1)), //                 3
      up(T + 90_000_000, state(99)), //          4 a clock glitch: 25 h ahead
      up(T + 2000, state(2)), //                 5
      up(T + 3000, state(3)), //                 6
      up(T + 4000, state(4)), //                 7
    ]);
    const { clock, fleet, events } = setup();
    const summary = await startReplay({ file, fleet, clock, speed: 'max' }).done;
    expect(summary.rejected).toEqual([expect.objectContaining({ line: 4, reason: expect.stringMatching(/^t jumps ahead of the lines around it \(/) })]);
    expect(summary.durationMs).toBe(4000);
    // Lines 5-7 are not taken as going "backwards" from the glitch: all four states are played.
    expect(events.filter((e) => e.type === 'state').map((e) => (e.payload as unknown as { state: { unit: { uptime: number } } }).state.unit.uptime)).toEqual([1, 2, 3, 4]);
  });
});

describe('startReplay: lines recorded late (`at` before `t`)', () => {
  const late = (t: number, at: unknown, frame: object) => JSON.stringify({ t, serial: A, at, dir: 'up', frame });
  const lines = [
    ev(T, 'connect'), //                                                     1
    up(T, connectFrame), //                                                  2
    late(T + 5000, T + 1000, state(1)), //                                   3 happened at +1 s
    JSON.stringify({ t: T + 6000, serial: A, at: T + 2000, event: 'disconnect' }), // 4 happened at +2 s
    JSON.stringify({ t: T + 7000, serial: A, at: T + 3000, event: 'connect' }), // 5
    late(T + 7000, T + 3000, connectFrame), //                               6
    up(T + 7000, state(2)), //                                               7 on time
    late(T + 8000, T + 9000, state(3)), //                                   8 at after t
    late(T + 8000, '1767600000000', state(4)), //                            9 at not a number
    late(T + 8000, 1e20, state(5)), //                                       10
    JSON.stringify({ t: T + 8000, serial: A, at: 'whenever', dir: 'down', frame: { jsonrpc: '2.0', id: 1, method: 'ping', params: { serial: A } } }), // 11 a command's at is not read
  ];

  it('dates each by its at, keeping the recorded times, and rejects an at that is no time or after t', async () => {
    const file = write('late.ndjson', lines);
    const { clock, fleet, events } = setup();
    const store = new MemoryCommandStore();
    const svc = new CommandService({ fleet, store, clock, newId: () => '00000000-0000-4000-8000-00000000000a', maxWaitMs: 1000 });
    const summary = await startReplay({ file, fleet, clock, speed: 'max', keepTime: true }).done;
    svc.close();
    expect(summary.rejected.map((r) => [r.line, r.reason])).toEqual([
      [8, `at is after t (${T + 9000} after ${T + 8000}): at says when a line recorded late happened`],
      [9, 'at is not a number: "1767600000000"'],
      [10, 'at is not a time in epoch ms: 100000000000000000000'],
    ]);
    const mine = events.filter((e) => e.serial === A && ['state', 'connected', 'disconnected'].includes(e.type));
    expect(mine.map((e) => [e.type, e.at - T])).toEqual([
      ['connected', 0], ['state', 1000], ['disconnected', 2000], ['connected', 3000], ['state', 7000],
    ]);
  });

  it('shifts at with t when the recording is moved to now', async () => {
    const file = write('late-shifted.ndjson', lines.slice(0, 7));
    const { clock, fleet, events } = setup();
    clock.runUntil(T + 3_600_000);
    await startReplay({ file, fleet, clock, speed: 'max' }).done;
    const start = T + 3_600_000;
    expect(events.filter((e) => e.serial === A && e.type === 'state').map((e) => e.at - start)).toEqual([1000, 7000]);
  });
});

describe('startReplay: frames the device actor refuses', () => {
  it('reports them with their line and why, and does not count them as played', async () => {
    const file = write('refused.ndjson', [
      ev(T, 'connect'), //                                                        1
      up(T, state(1)), //                                                         2 before the AP's connect
      up(T, connectFrame), //                                                     3
      up(T + 1000, { jsonrpc: '2.0', method: 'state', params: { uuid: 5, state: {} } }), // 4 no params.serial
      up(T + 2000, state(2)), //                                                  5
    ]);
    const { clock, fleet, events } = setup();
    const summary = await startReplay({ file, fleet, clock, speed: 'max' }).done;
    expect(summary.rejectedCount).toBe(0);
    expect(summary.frames).toBe(2);
    expect(summary.refusedCount).toBe(2);
    expect(summary.accepted).toBe(5);
    expect(summary.refused.map((r) => r.line)).toEqual([2, 4]);
    expect(summary.refused[0]!.reason).toMatch(/^refused by the device actor: state before connect/);
    expect(summary.refused[1]!.reason).toMatch(/^refused by the device actor: state ignored/);
    // The same frames as the actor saw them: one protocol error, one ignored, one state stored.
    expect(events.filter((e) => e.type === 'protocol-error')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'frame-ignored')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'state')).toHaveLength(1);
  });
});

describe('startReplay: connection state and commands', () => {
  const recording = write('cmds.ndjson', [
    ev(T, 'connect'),
    up(T, connectFrame),
    down(T + 10_000, 57, 'ping'),
    up(T + 10_040, { jsonrpc: '2.0', id: 57, result: { serial: A, uuid: 5, status: { error: 0, text: 'pong' } } }),
    up(T + 20_000, state(1)),
    ev(T + 30_000, 'disconnect'),
    up(T + 31_000, state(2)),
    down(T + 32_000, 58, 'reboot'),
  ]);

  it('completes the recorded command with its recorded result, matched by id, and keeps the recorded connection state', async () => {
    const { clock, fleet, events } = setup();
    const r = startReplay({ file: recording, fleet, clock, speed: 'max' });
    const summary = await r.done;
    const ping = events.flatMap((e) => (e.type === 'command-updated' && e.payload.command.command === 'ping' ? [e.payload.command] : []));
    expect(ping.at(-1)).toMatchObject({ status: 'completed', submittedBy: 'replay', executed: (T + 10_000) / 1000, completed: Math.floor((T + 10_040) / 1000) });
    expect(JSON.parse(ping.at(-1)!.results)).toMatchObject({ status: { text: 'pong' } });
    // After the recorded disconnect: the state frame is not delivered, the reboot could not run.
    expect(summary.dropped).toBe(1);
    expect(summary.unmatched).toHaveLength(1);
    expect(summary.unmatched[0]).toMatchObject({ line: 8 });
    expect(summary.unmatched[0]!.reason).toMatch(/reboot .*DEVICE_OFFLINE/);
    expect(fleet.status(A)?.connected).toBe(false);
    expect(r.links.get(A)?.connected).toBe(false);
    expect(events.filter((e) => e.type === 'protocol-error')).toEqual([]);
  });

  it('does not deliver a result of no command the actor ran: it used to complete the actor\'s own command of that number', async () => {
    // The actor numbers its commands from 2: the recorded ping (57) goes out as 2, and the AP never
    // answers it. A result recorded under id 2 (its command came before the recording began)
    // passed through as 2 and completed the ping with another command's answer.
    const file = write('orphan-result.ndjson', [
      ...opening(),
      down(T + 10_000, 57, 'ping'),
      up(T + 10_040, { jsonrpc: '2.0', id: 2, result: { serial: A, uuid: 77, status: { error: 0, text: 'not the ping\'s' } } }),
      up(T + 20_000, state(1)),
    ]);
    const { clock, fleet, events } = setup();
    const summary = await startReplay({ file, fleet, clock, speed: 'max' }).done;
    const ping = events.flatMap((e) => (e.type === 'command-updated' && e.payload.command.command === 'ping' ? [e.payload.command] : []));
    expect(ping.at(-1)).toMatchObject({ status: 'executed', completed: 0 });
    expect(ping.some((c) => c.results.includes('not the ping'))).toBe(false);
    expect(summary).toMatchObject({ unmatchedCount: 1, refusedCount: 0, frames: 3 });
    expect(summary.unmatched).toEqual([{ line: 4, reason: expect.stringMatching(/^result for recorded command id 2, which the device actor did not run/) }]);
  });

  it('counts every recorded command its actor did not run, past the 1,000 it lists, and not as frames', async () => {
    const n = 1_005;
    const lines = Array.from({ length: n }, (_, i) => down(T + i, 10 + i, 'ping'));
    const { clock, fleet } = setup();
    const summary = await startReplay({ file: write('never-online.ndjson', lines), fleet, clock, speed: 'max' }).done;
    expect(summary.unmatchedCount).toBe(n);
    expect(summary.unmatched).toHaveLength(1_000);
    expect(summary.unmatched[0]!.reason).toMatch(/recorded ping not run by the device actor \(DEVICE_OFFLINE/);
    expect(summary.frames).toBe(0);
  });

  it('runs the recorded reboot after a recorded recovery asking for one, and no reboot of its own', async () => {
    // What `serve --record` writes for an AP that reports recovery with reboot: true: the live
    // actor's own reboot went down and was answered. The replayed actor queued one of its own
    // too, which the link refused (a failed *system reboot that never happened), and the
    // recorded reboot, refused DEVICE_BUSY meanwhile, never ran.
    const file = write('recovery.ndjson', [
      ...opening(),
      up(T + 1000, { jsonrpc: '2.0', method: 'recovery', params: { serial: A, uuid: 5, firmware: 'fw-1', reboot: true, loglines: ['x'] } }),
      down(T + 1001, 2, 'reboot', { serial: A, when: 0 }),
      up(T + 1500, { jsonrpc: '2.0', id: 2, result: { serial: A, uuid: 5, status: { error: 0, text: '', when: 0 } } }),
    ]);
    const { clock, fleet, events } = setup();
    const summary = await startReplay({ file, fleet, clock, speed: 'max' }).done;
    const commands = events.flatMap((e) => (e.type === 'command-updated' || e.type === 'command-rejected' ? [e.payload.command] : []));
    expect(commands.filter((c) => c.submittedBy !== 'replay')).toEqual([]);
    expect(commands.at(-1)).toMatchObject({ command: 'reboot', submittedBy: 'replay', status: 'completed' });
    expect(summary).toMatchObject({ unmatchedCount: 0, refusedCount: 0 });
  });

  it('gives a recorded script the time its own timeout asks for, as the live submission did', async () => {
    // timeout 120 s: live waited 150 s for the reply; the replay waited 60 s, timed the script
    // out and dropped its recorded result 90 s later.
    const script = { serial: A, type: 'shell', script: 'ZWNobyBoaQ==', timeout: 120, when: 0 };
    const file = write('script.ndjson', [
      ...opening(),
      down(T + 1000, 2, 'script', script),
      up(T + 91_000, { jsonrpc: '2.0', id: 2, result: { serial: A, uuid: 5, status: { error: 0, result: 'hi', when: 0 } } }),
    ]);
    const { clock, fleet, events } = setup();
    await startReplay({ file, fleet, clock, speed: 'max' }).done;
    const scripts = events.flatMap((e) => (e.type === 'command-updated' && e.payload.command.command === 'script' ? [e.payload.command] : []));
    expect(scripts.at(-1)).toMatchObject({ status: 'completed', completed: Math.floor((T + 91_000) / 1000) });
  });

  it('refuses a new command on a replayed device at once with DEVICE_OFFLINE, leaving no record', async () => {
    const { clock, fleet, newId } = setup();
    const file = write('online.ndjson', [ev(T, 'connect'), up(T, connectFrame), up(T + 5000, state(1))]);
    const r = startReplay({ file, fleet, clock, speed: 'max' });
    await r.done;
    await flush();
    const link = r.links.get(A)!;
    await expect(link.send({ jsonrpc: '2.0', id: 9, method: 'leds', params: { serial: A } })).rejects.toMatchObject({ code: 'DEVICE_OFFLINE' });
    // Through the command service (the gateway's 409 DEVICE_OFFLINE), before any record exists,
    // not a `failed` record with errorCode 0 as if the AP had been asked.
    const store = new MemoryCommandStore();
    const svc = new CommandService({ fleet, store, clock, newId });
    const refused = { name: 'AirtwinError', code: 'DEVICE_OFFLINE', message: expect.stringMatching(/is replayed from a recording: it plays back what the AP did and cannot run a new '\w+'/) };
    await expect(svc.reboot(A, {})).rejects.toMatchObject(refused);
    // Queueable commands too: no retry could deliver them.
    await expect(svc.configure(A, { configuration: '{"radios":[]}', uuid: 77 })).rejects.toMatchObject(refused);
    await expect(svc.upgrade(A, { uri: 'https://example.com/fw.bin' })).rejects.toMatchObject(refused);
    await expect(svc.factory(A, { keepRedirector: true })).rejects.toMatchObject(refused);
    await flush();
    await svc.flush();
    expect(store.rows.size).toBe(0);
    expect(fleet.status(A)?.connected).toBe(true);
    svc.close();
  });

  it('pushes no stored configuration to a replayed AP (the recording holds what the live gateway pushed)', async () => {
    // The data dir's configuration (uuid 9) is newer than the one the AP reconnects with (5): a
    // live AP would get it pushed; a replayed one only plays what was recorded.
    const clock = new VirtualClock(T);
    let n = 0;
    const fleet = new Fleet({ clock, newId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`, storedConfigFor: () => ({ uuid: 9, configuration: '{"uuid":9,"radios":[]}' }) });
    const events: FleetEvent[] = [];
    fleet.events$.subscribe((e) => events.push(e));
    const file = write('stale-uuid.ndjson', [ev(T, 'connect'), up(T, connectFrame), up(T + 5000, state(1)), ev(T + 6000, 'disconnect'), ev(T + 7000, 'connect'), up(T + 7000, connectFrame), up(T + 9000, state(2))]);
    const summary = await startReplay({ file, fleet, clock, speed: 'max' }).done;
    await flush();
    expect(summary).toMatchObject({ rejectedCount: 0, refusedCount: 0 });
    // No configure was submitted, refused or recorded: the history holds what the recording holds.
    expect(events.filter((e) => e.type === 'command-updated' || e.type === 'command-rejected' || e.type === 'config-pending')).toEqual([]);
    expect(fleet.status(A)).toMatchObject({ connected: true, UUID: 5 });
  });

  it('plays at a speed factor on a scaled clock, with the same outcome', async () => {
    const clock = new ScaledClock(wallClock, 10_000, T);
    const fleet = new Fleet({ clock, newId: () => '00000000-0000-4000-8000-000000000001' });
    const states: number[] = [];
    fleet.events$.subscribe((e) => { if (e.type === 'state') states.push(e.at); });
    const summary = await startReplay({ file: recording, fleet, clock, speed: 10_000, keepTime: true }).done;
    expect(summary.frames).toBe(4); // connect, ping, its result, state; not the reboot it could not run
    expect(states).toHaveLength(1);
    expect(states[0]).toBeGreaterThanOrEqual(T + 20_000);
    expect(summary.unmatched).toHaveLength(1);
  });

  it('plays lines whose t has decimals on a held, paced clock (it waited for ever for a time its ms never reached)', async () => {
    // replayClock's clock: held at the start, moved line by line. now() is whole ms, so a hold at
    // T + 1000.5 never let a timer due then see its time come.
    const clock = new ScaledClock(wallClock, 1_000, T, { heldAtStart: true });
    const fleet = new Fleet({ clock, newId: () => '00000000-0000-4000-8000-000000000001' });
    const file = write('decimal-t.ndjson', [ev(T + 0.25, 'connect'), up(T + 1000.5, connectFrame), up(T + 3000.75, state(1)), up(T + 5000.5, state(2))]);
    const r = startReplay({ file, fleet, clock, speed: 1_000, keepTime: true });
    // A replay that waits for ever fails the test at its timeout, and is stopped then.
    onTestFinished(() => r.stop());
    expect(await r.done).toMatchObject({ frames: 3, rejectedCount: 0, stopped: false });
  });

  it('ends when stopped between two waits, on a virtual clock nobody advances any more', async () => {
    // stop() lands while the replayer yields after the AP's connect (not while it waits for the
    // next line's time): the next line must not arm a timer on a clock that will not move.
    const file = write('stop-between.ndjson', [ev(T, 'connect'), up(T, connectFrame), up(T + 20_000, state(1)), up(T + 40_000, state(2))]);
    const { clock, fleet } = setup();
    const r = startReplay({ file, fleet, clock, speed: 1, keepTime: true });
    fleet.events$.subscribe((e) => { if (e.type === 'connected') r.stop(); });
    // A replay that does not end fails the test at its timeout.
    expect(await r.done).toMatchObject({ stopped: true });
  });

  it('stops early on stop(), saying so', async () => {
    const clock = new ScaledClock(wallClock, 1, T);
    const fleet = new Fleet({ clock, newId: () => '00000000-0000-4000-8000-000000000001' });
    const r = startReplay({ file: recording, fleet, clock, speed: 1, keepTime: true });
    await new Promise((resolve) => setImmediate(resolve));
    r.stop();
    const summary = await r.done;
    expect(summary.stopped).toBe(true);
    expect(summary.frames).toBeLessThan(5);
  });
});

describe('recordedConnects: the APs a recording connects, found without parsing every line', () => {
  it('gives each serial its first connect frame\'s params, in order, and nothing else', async () => {
    const B = 'aabbccddee02';
    const file = write('connects.ndjson', [
      ev(T, 'connect'),
      up(T, connectFrame),
      up(T + 1000, { jsonrpc: '2.0', method: 'state', params: { serial: A, uuid: 5, state: { interfaces: [{ ssids: [{ associations: [{ station: 'x', connected: 10 }] }] }] } } }),
      ev(T + 2000, 'connect', B),
      up(T + 2000, { jsonrpc: '2.0', method: 'connect', params: { serial: B, uuid: 9, firmware: 'fw-b', capabilities } }, B),
      up(T + 3000, { ...connectFrame, params: { ...connectFrame.params, uuid: 6 } }),
      'not json "connect"',
    ]);
    const found = await recordedConnects(file);
    expect([...found.keys()]).toEqual([A, B]);
    expect(found.get(A)).toMatchObject({ uuid: 5, firmware: 'fw-1' });
    expect(found.get(B)).toMatchObject({ uuid: 9, firmware: 'fw-b' });
  });
});
