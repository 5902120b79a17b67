import type { Clock } from '../protocol/clock.js';
import type { DeviceLink } from '../protocol/device-link.js';
import { nowSeconds } from '../protocol/clock.js';
import { serialToMac } from '../protocol/serial.js';
import type { DevicesRepo } from '../store/devices-repo.js';
import type { Fleet } from '../../actors/fleet.js';
import { loadScenario } from '../../simulator/scenario.js';
import { buildVenue, type Venue } from '../../simulator/venue.js';
import { SimLink, type SimRtty, type SimUpload } from '../../simulator/link.js';
import { startClients } from '../../simulator/clients/dynamics.js';
import type { SimAp } from '../../simulator/ap/ap-state.js';

/**
 * The configuration an AP of the venue runs out of the box, as a uCentral document: what the
 * gateway would have pushed to it. The RRM edits its radios; the AP applies them on `configure`.
 */
export function venueApConfiguration(ap: SimAp): Record<string, unknown> {
  return {
    uuid: ap.uuid,
    radios: ap.radios.filter((r) => r.enabled).map((r) => ({ band: r.band, channel: r.channel, 'channel-width': r.width, 'tx-power': r.txPower, country: ap.country })),
    // No `metrics`: scenarios may report faster than firmware allows a configuration to ask
    // (statistics >= 60 s), so a pushed configuration leaves the venue's own intervals alone.
  };
}

/**
 * The process clock seen through a scope: every timer set through it is cancelled by `stop()`,
 * and none can be set afterwards. The venue's stations have no stop of their own, so closing the
 * venue stops its clock scope instead.
 */
class ScopedClock implements Clock {
  private readonly live = new Set<unknown>();
  private stopped = false;

  constructor(private readonly base: Clock) {}

  now(): number {
    return this.base.now();
  }

  setTimeout(fn: (...args: unknown[]) => void, timeoutMs: number): unknown {
    if (this.stopped) return undefined;
    const id: unknown = this.base.setTimeout((...args: unknown[]) => {
      this.live.delete(id);
      fn(...args);
    }, timeoutMs);
    this.live.add(id);
    return id;
  }

  clearTimeout(id: unknown): void {
    this.live.delete(id);
    this.base.clearTimeout(id);
  }

  stop(): void {
    this.stopped = true;
    for (const id of this.live) this.base.clearTimeout(id);
    this.live.clear();
  }
}

export interface SimVenue {
  venue: Venue;
  links: SimLink[];
  seed: number | string;
  close(): Promise<void>;
}

/**
 * Brings a scenario to life inside `serve`: a device record per AP (created if missing, with the
 * AP's own configuration so the uuid matches and nothing is pushed at connect), one SimLink per
 * AP attached to the fleet, and the stations moving, all on the process clock.
 */
export async function startSimVenue(opts: {
  scenario: string; seed?: number; clock: Clock; fleet: Fleet; devices: DevicesRepo;
  /** Decorates each AP's link before the fleet gets it (e.g. the recorder). */
  wrap?: (link: DeviceLink) => DeviceLink;
  /** How the APs upload command files (trace captures, script output). */
  upload?: SimUpload;
  /** How the APs' rtty clients reach the rtty server a session names. */
  rtty?: SimRtty;
}): Promise<SimVenue> {
  const { scenario } = loadScenario(opts.scenario);
  const seed = opts.seed ?? scenario.seed;
  const clock = new ScopedClock(opts.clock);
  const venue = buildVenue(scenario, clock, seed);
  const now = nowSeconds(clock);
  const missing: Parameters<DevicesRepo['insert']>[0][] = [];
  for (const ap of venue.aps) {
    if (opts.devices.has(ap.serial)) continue;
    missing.push({
      serialNumber: ap.serial, deviceType: 'AP', macAddress: serialToMac(ap.serial), manufacturer: ap.capabilities.model ?? ap.model,
      UUID: ap.uuid, configuration: JSON.stringify(venueApConfiguration(ap)), notes: [{ created: now, createdBy: 'airtwin', note: `Simulated AP of venue ${scenario.name}.` }],
      createdTimestamp: now, lastConfigurationChange: now, lastConfigurationDownload: now, firmware: ap.firmware, devicePassword: '',
      owner: '', location: '', venue: scenario.name, subscriber: '', entity: '', modified: now, locale: ap.country,
      compatible: ap.capabilities.compatible ?? ap.model, lastFWUpdate: 0, lastRecordedContact: 0, simulated: true, connectReason: '',
    });
  }
  await opts.devices.insertMany(missing);
  const links = venue.aps.map((ap) => new SimLink(venue, ap.serial, {
    autoStart: false, ...(opts.upload ? { upload: opts.upload } : {}), ...(opts.rtty ? { rtty: opts.rtty } : {}),
  }));
  for (const link of links) opts.fleet.attach(opts.wrap ? opts.wrap(link) : link);
  for (const link of links) link.start();
  startClients(venue);
  return {
    venue, links, seed,
    close: async () => {
      await Promise.all(links.map((l) => l.close('shutdown').catch(() => undefined)));
      clock.stop();
    },
  };
}
