import { describe, expect, it } from 'vitest';
import { deflateParams } from '../../../src/protocol/compress.js';
import type { LinkEvent } from '../../../src/protocol/device-link.js';
import type { CommandFrame, UpFrame } from '../../../src/protocol/frame.js';
import { parseWifiScanStatus } from '../../../src/protocol/wifiscan.js';
import { blockPrimaries, maxTxPowerDbm } from '../../../src/protocol/wifi-channels.js';
import { SimLink } from '../../../simulator/link.js';
import { labWithLinks } from '../../helpers/sim-venue.js';

const cmd = (id: number, method: CommandFrame['method'], params: Record<string, unknown>): CommandFrame => ({ jsonrpc: '2.0', id, method, params });
const frames = (evs: LinkEvent[]): UpFrame[] => evs.flatMap((e) => (e.type === 'frame' ? [e.frame] : []));
const resultOf = (evs: LinkEvent[], id: number): any => frames(evs).find((f) => 'id' in f && f.id === id);
const lastState = (evs: LinkEvent[]): any => frames(evs).filter((f) => 'method' in f && f.method === 'state').at(-1);

function online() {
  const lab = labWithLinks();
  lab.clock.increment(6000); // every lab AP connects within 5 s
  const serial = lab.venue.aps[0]!.serial;
  return { ...lab, serial, link: lab.links[0]!, evs: lab.events.get(serial)! };
}

describe('SimLink', () => {
  it('connects, sends connect first, then periodic state and healthcheck on the clock', () => {
    const { clock, evs, serial } = online();
    expect(evs[0]).toMatchObject({ type: 'connected', certificate: 'VERIFIED' });
    expect(evs[1]).toMatchObject({ type: 'frame', frame: { method: 'connect', params: { serial } } });
    clock.increment(60_000);
    const methods = frames(evs).map((f) => ('method' in f ? f.method : 'result'));
    expect(methods.filter((m) => m === 'state').length).toBeGreaterThanOrEqual(5);
    expect(methods.filter((m) => m === 'healthcheck').length).toBeGreaterThanOrEqual(2);
    for (const e of evs) if (e.type === 'frame') expect(e.bytes).toBe(Buffer.byteLength(JSON.stringify(e.frame)));
  });

  it('answers ping with its uuid and device time', async () => {
    const { clock, link, evs, venue } = online();
    await link.send(cmd(11, 'ping', { serial: link.serial }));
    clock.increment(1000);
    expect(resultOf(evs, 11).result).toMatchObject({ serial: link.serial, uuid: venue.aps[0]!.uuid, status: { error: 0 } });
    expect(resultOf(evs, 11).result.deviceUTCTime).toBeLessThanOrEqual(clock.now());
  });

  it('configure applies channel, width and tx power, adopts the uuid, and the next state shows them', async () => {
    const { clock, link, evs } = online();
    const config = { uuid: 1767600500, radios: [{ band: '5G', channel: 149, 'channel-width': 40, 'tx-power': 11 }, { band: '2G', channel: 11, 'channel-width': 80, 'tx-power': 5 }] };
    await link.send(cmd(12, 'configure', { serial: link.serial, uuid: 1767600500, when: 0, config }));
    clock.increment(3000);
    expect(resultOf(evs, 12).result).toMatchObject({ uuid: 1767600500, status: { error: 0 } });
    clock.increment(10_000);
    const st = lastState(evs).params;
    expect(st.uuid).toBe(1767600500);
    expect(st.state.radios[0]).toMatchObject({ channel: 149, channel_width: 40, tx_power: 11, channels: [149, 151], frequency: [5745, 5755] });
    expect(st.state.radios[1]).toMatchObject({ channel: 11, tx_power: 5, channel_width: 20 }); // the schema's default 80 is only a hint on 2.4 GHz
  });

  it('configure substitutes what it cannot apply (error 1, rejected[]) and refuses what it cannot read (error 2)', async () => {
    const { clock, link, evs, venue } = online();
    const before = venue.aps[0]!.radios[0]!.channel;
    await link.send(cmd(13, 'configure', { serial: link.serial, uuid: 5, config: { radios: [{ band: '5G', channel: 40, 'channel-width': 80, 'tx-power': 29 }, { band: '6G', channel: 5 }] } }));
    await link.send(cmd(14, 'configure', { serial: link.serial, uuid: 6 }));
    clock.increment(3000);
    const r13 = resultOf(evs, 13).result;
    expect(r13.status.error).toBe(1);
    const params = r13.status.rejected.map((x: any) => x.parameter);
    expect(params).toEqual(expect.arrayContaining(['radios[0].channel', 'radios[0].tx-power', 'radios[1].band']));
    const r = venue.aps[0]!.radios[0]!;
    expect(r.txPower).toBe(maxTxPowerDbm('US', '5G', r.channel)); // clamped to the limit of the channel ACS chose
    expect(blockPrimaries('5G', 80)).toContain(r.channel);
    expect(resultOf(evs, 14).result.status.error).toBe(2);
    expect(venue.aps[0]!.uuid).toBe(5);
    expect(r13.status.rejected.find((x: any) => x.parameter === 'radios[0].channel').substitution).toBe(String(r.channel));
    void before;
  });

  it('configure metrics change the report intervals and turn on periodic scans', async () => {
    const { clock, link, evs } = online();
    await link.send(cmd(40, 'configure', { serial: link.serial, uuid: 9, config: { metrics: { statistics: { interval: 120 }, health: { interval: 300 }, 'wifi-scan': { interval: 60 } } } }));
    clock.increment(3000);
    expect(resultOf(evs, 40).result.status.error).toBe(0);
    const from = evs.length;
    clock.increment(600_000);
    const later = frames(evs.slice(from)).map((f) => ('method' in f ? f.method : 'result'));
    expect(later.filter((m) => m === 'state').length).toBeGreaterThanOrEqual(4);
    expect(later.filter((m) => m === 'state').length).toBeLessThanOrEqual(5);
    expect(later.filter((m) => m === 'healthcheck').length).toBeLessThanOrEqual(2);
    const scans = frames(evs.slice(from)).filter((f) => 'method' in f && f.method === 'wifiscan') as any[];
    expect(scans.length).toBeGreaterThanOrEqual(9);
    expect(Array.isArray(scans[0].params.data)).toBe(true);
  });

  it('accepts a compressed configure (compress_cmd)', async () => {
    const { clock, link, evs, venue } = online();
    await link.send(cmd(15, 'configure', deflateParams({ serial: link.serial, uuid: 77, config: { radios: [{ band: '2G', channel: 6 }] } })));
    clock.increment(3000);
    expect(resultOf(evs, 15).result.status.error).toBe(0);
    expect(venue.aps[0]!.radios[1]!.channel).toBe(6);
  });

  it('reboot: answers, drops, boots, reconnects with a fresh uptime; upgrade changes the firmware', async () => {
    const { clock, link, evs } = online();
    await link.send(cmd(16, 'reboot', { serial: link.serial, when: 0 }));
    clock.increment(2000);
    expect(resultOf(evs, 16).result.status.error).toBe(0);
    expect(evs.at(-1)).toMatchObject({ type: 'disconnected', reason: 'reboot' });
    await expect(link.send(cmd(17, 'ping', {}))).rejects.toMatchObject({ code: 'DEVICE_OFFLINE' });
    clock.increment(120_000);
    const connects = evs.filter((e) => e.type === 'connected');
    expect(connects).toHaveLength(2);
    expect(lastState(evs).params.state.unit.uptime).toBeLessThan(200);
    expect(frames(evs).some((f: any) => f.method === 'event' && f.params.data.event[1].type === 'unit.boot-up')).toBe(true);
    await link.send(cmd(18, 'upgrade', { serial: link.serial, uri: 'https://fw.example/TIP-v3.1.0-eap101.bin' }));
    clock.increment(200_000);
    const connect = frames(evs).filter((f) => 'method' in f && f.method === 'connect').at(-1) as any;
    expect(connect.params.firmware).toContain('TIP-v3.1.0-eap101');
  });

  it('request state/healthcheck answers, then sends the document with request_uuid', async () => {
    const { clock, link, evs } = online();
    await link.send(cmd(19, 'request', { serial: link.serial, message: 'healthcheck', request_uuid: 'abc' }));
    await link.send(cmd(20, 'request', { serial: link.serial, message: 'state', request_uuid: 'def' }));
    clock.increment(1000);
    const got = frames(evs).filter((f: any) => f.params?.request_uuid);
    expect(got.map((f: any) => [f.method, f.params.request_uuid])).toEqual(expect.arrayContaining([['healthcheck', 'abc'], ['state', 'def']]));
  });

  it('wifiscan answers with result.status.scan[] from the world, per band selector', async () => {
    const { clock, link, evs, venue } = online();
    await link.send(cmd(21, 'wifiscan', { serial: link.serial, override_dfs: true, active: true }));
    await link.send(cmd(22, 'wifiscan', { serial: link.serial, bands: ['2G'] }));
    clock.increment(7000);
    const all = resultOf(evs, 21).result.status;
    expect(parseWifiScanStatus(all).ok).toBe(true);
    const others = venue.aps.slice(1).flatMap((a) => a.radios.flatMap((r) => r.bssids));
    expect(all.scan.some((e: any) => others.includes(e.bssid))).toBe(true);
    expect(all.scan.some((e: any) => e.ssid === 'cafe-next-door')).toBe(true);
    expect(resultOf(evs, 22).result.status.scan.every((e: any) => e.channel <= 14)).toBe(true);
  });

  it('telemetry streams at the interval until told to stop', async () => {
    const { clock, link, evs } = online();
    await link.send(cmd(23, 'telemetry', { serial: link.serial, interval: 2, types: ['state'] }));
    clock.increment(10_100);
    const n = frames(evs).filter((f) => 'method' in f && f.method === 'telemetry').length;
    expect(n).toBeGreaterThanOrEqual(4);
    await link.send(cmd(24, 'telemetry', { serial: link.serial, interval: 0 }));
    clock.increment(500);
    const stopped = frames(evs).filter((f) => 'method' in f && f.method === 'telemetry').length;
    clock.increment(10_000);
    expect(frames(evs).filter((f) => 'method' in f && f.method === 'telemetry').length).toBe(stopped);
  });

  it('script and trace return an output file (result_64 + result_sz); unknown commands get error 1', async () => {
    const { clock, link, evs } = online();
    await link.send(cmd(25, 'script', { serial: link.serial, type: 'shell', script: Buffer.from('uptime').toString('base64'), timeout: 30 }));
    await link.send(cmd(26, 'trace', { serial: link.serial, duration: 2, network: 'up', interface: 'up0v0', uri: 'https://x/upload' }));
    await link.send(cmd(27, 'perform', { serial: link.serial }));
    await link.send(cmd(28, 'script', { serial: link.serial, type: 'perl' }));
    await link.send(cmd(29, 'leds', { serial: link.serial, pattern: 'blink', duration: 10 }));
    await link.send(cmd(30, 'event', { serial: link.serial, types: ['client'] }));
    clock.increment(5000);
    for (const id of [25, 26]) {
      const st = resultOf(evs, id).result.status;
      expect(st.error).toBe(0);
      expect(st.result_sz).toBeGreaterThan(0);
      expect(typeof st.result_64).toBe('string');
    }
    expect(resultOf(evs, 27).result.status.error).toBe(1);
    expect(resultOf(evs, 28).result.status.error).toBe(2);
    expect(resultOf(evs, 29).result.status.error).toBe(0);
    expect(resultOf(evs, 30).result.events).toEqual({ client: expect.any(Array) });
  });

  it('rtty starts a session when told where to (id, token, server, port), and refuses one it cannot start (error 2)', async () => {
    const { clock, link, evs } = online();
    const session = { serial: link.serial, id: 'a'.repeat(32), token: 'b'.repeat(32), server: 'rtty.example.net', port: 5912, user: 'ops', timeout: 60, password: 'openwifi' };
    await link.send(cmd(31, 'rtty', session));
    await link.send(cmd(32, 'rtty', { ...session, server: '' }));
    await link.send(cmd(33, 'rtty', { ...session, port: 70000 }));
    await link.send(cmd(34, 'rtty', { serial: link.serial }));
    clock.increment(1000);
    expect(resultOf(evs, 31).result.status).toEqual({ error: 0, text: 'Success' });
    expect(resultOf(evs, 32).result.status).toMatchObject({ error: 2, text: 'rtty: server missing' });
    expect(resultOf(evs, 33).result.status).toMatchObject({ error: 2, text: 'rtty: port must be 1..65535' });
    expect(resultOf(evs, 34).result.status.error).toBe(2);
  });

  it('close() disconnects for good and stops every frame', async () => {
    const { clock, link, evs } = online();
    await link.close('shutdown');
    const n = evs.length;
    expect(evs.at(-1)).toMatchObject({ type: 'disconnected', reason: 'shutdown' });
    clock.increment(300_000);
    expect(evs.length).toBe(n);
    await expect(link.send(cmd(31, 'ping', {}))).rejects.toBeInstanceOf(Error);
  });

  it('injectRaw reports garbage as malformed and passes valid frames through', () => {
    const { link, evs } = online();
    link.injectRaw('{"jsonrpc":"2.0","method":"state"');
    link.injectRaw('{"jsonrpc":"2.0","method":"nonsense","params":{}}');
    link.injectRaw(JSON.stringify({ jsonrpc: '2.0', method: 'log', params: { serial: link.serial, log: 'x', severity: 6 } }));
    const tail = evs.slice(-3);
    expect(tail.map((e) => e.type)).toEqual(['malformed', 'malformed', 'frame']);
    expect(tail[0]).toMatchObject({ reason: 'not JSON', bytes: Buffer.byteLength('{"jsonrpc":"2.0","method":"state"') });
  });

  it('refuses an unknown serial', () => {
    const { venue } = online();
    expect(() => new SimLink(venue, 'ffffffffffff')).toThrow(RangeError);
  });
});
