import { describe, expect, it } from 'vitest';
import { labFleet } from '../../helpers/lab-fleet.js';

/**
 * Wiring: real device actors on the simulator's SimLink for the `lab` venue, one VirtualClock
 * driving the APs, the actors' delays and the command service's waits.
 */
function lab() {
  const l = labFleet();
  return { ...l, store: l.commandStore };
}

describe('fleet on SimLink (lab venue)', () => {
  it('brings every lab AP online and ingests its reports', async () => {
    const { fleet, events, advance, serials } = lab();
    await advance(60_000);
    for (const s of serials) {
      expect(fleet.details(s)?.state).toBe('online.idle');
      expect(fleet.status(s)).toMatchObject({ connected: true, verifiedCertificate: 'VERIFIED' });
      expect(fleet.details(s)?.lastState).toBeDefined();
      expect(fleet.details(s)?.capabilities).toBeDefined();
    }
    expect(events.filter((e) => e.type === 'protocol-error')).toEqual([]);
    const kinds = new Set(events.map((e) => e.type));
    for (const k of ['connected', 'capabilities', 'state', 'healthcheck'] as const) expect(kinds).toContain(k);
  });

  it('produces the same event log for the same scenario and seed', async () => {
    const logOf = async () => {
      const { events, advance, svc, settle, serials } = lab();
      await advance(60_000);
      await settle(svc.wifiscan(serials[2]!, {}));
      await advance(60_000);
      return events.map((e) => JSON.stringify(e));
    };
    const [a, b] = [await logOf(), await logOf()];
    expect(a.length).toBeGreaterThan(20);
    expect(b).toEqual(a);
  });

  it('runs ping, wifiscan and configure end to end through the command service', async () => {
    const { svc, store, events, advance, settle, serials, fleet } = lab();
    await advance(30_000);
    const s = serials[0]!;
    const { result } = await settle(svc.ping(s));
    expect(result.latency).toBeGreaterThanOrEqual(20);
    expect(result.latency).toBeLessThanOrEqual(200);
    expect(result.deviceUTCTime).toBeGreaterThan(0);

    const scan = await settle(svc.wifiscan(s, { verbose: true }));
    expect(scan.status).toBe('completed');
    expect(events.some((e) => e.type === 'wifiscan-result' && e.payload.source === 'command' && e.payload.entries.length > 0)).toBe(true);

    const uuid = fleet.status(s)!.UUID + 100;
    const cfg = await settle(svc.configure(s, { configuration: { radios: [{ band: '5G', channel: 44, 'channel-width': 20, 'tx-power': 15 }] }, uuid }));
    expect(cfg).toMatchObject({ status: 'completed', errorCode: 0 });
    await svc.flush();
    expect(store.get(cfg.UUID)?.status).toBe('completed');
    // The AP now runs the new configuration: its next state reports the uuid.
    await advance(15_000);
    expect(fleet.status(s)!.UUID).toBe(uuid);
  });

  it('reboots an AP and sees it come back; an upgrade records the new firmware', async () => {
    const { svc, events, advance, settle, serials, fleet } = lab();
    await advance(30_000);
    const s = serials[1]!;
    const reboot = await settle(svc.reboot(s));
    expect(reboot.status).toBe('completed');
    expect(fleet.details(s)?.state).toBe('rebooting');
    await advance(120_000);
    expect(fleet.details(s)?.state).toBe('online.idle');
    const before = fleet.status(s)!.firmware;
    const up = await settle(svc.upgrade(s, { uri: 'https://fw.example/TIP-v3.0.0.bin' }));
    expect(up.status).toBe('completed');
    await advance(150_000);
    expect(fleet.details(s)?.state).toBe('online.idle');
    const change = events.find((e) => e.type === 'firmware-changed' && e.serial === s);
    expect(change?.type === 'firmware-changed' && change.payload.oldFirmware).toBe(before);
    expect(fleet.status(s)!.firmware).toContain('TIP-v3.0.0');
  });
});
