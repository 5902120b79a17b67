import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { nowSeconds } from '../../protocol/clock.js';
import type { DeviceStatus } from '../../protocol/device-status.js';
import type { LiveStatus } from '../device-status-source.js';
import type { Device } from '../../store/records.js';
import { errorResponses } from '../../server/schemas.js';
import { ouiVendor } from '../offline-lookups.js';
import type { GatewayDeps } from '../deps.js';

const TagCounts = (description: string) => Type.Array(Type.Object({ tag: Type.String(), value: Type.Integer() }), { description });

/**
 * The shape is not in the spec; this follows upstream's Dashboard
 * (docs/upstream.md#other-gateway-routes: bare `{tag, value}` arrays, not the `{tagList}` objects
 * its OpenAPI claims) and adds `firmware`.
 */
const Dashboard = Type.Object({
  snapshot: Type.Integer({ description: 'Epoch seconds when the figures were computed (they are computed on every request).' }),
  numberOfDevices: Type.Integer(),
  commands: TagCounts('Stored commands per command name. Sorted by tag.'),
  vendors: TagCounts("Devices per OUI manufacturer of the serial ('unknown' when unregistered). Sorted by tag."),
  deviceType: TagCounts("Devices per model (`compatible`, as in GET /capabilities; 'unknown' until the AP reported one). Sorted by tag."),
  firmware: TagCounts("Devices per firmware (live if connected, else the record; 'unknown' when empty). Sorted by tag."),
  status: TagCounts('Devices: connected, not connected.'),
  certificates: TagCounts('Connected devices per certificate check: no certificate, non TIP certificate, serial mismatch, verified, simulated.'),
  lastContact: TagCounts('Devices per time since last contact: now (< 1 h), >hour, >day, >week (7 d), >month (30 d), never.'),
  healths: TagCounts('Devices per sanity of their last stored health check: 100%, >90%, >60%, <60%, unknown (none stored).'),
  upTimes: TagCounts('Connected devices per uptime: now (< 1 h), >hour, >day, >week, >month; unknown before its first state.'),
  memoryUsed: TagCounts('Connected devices per memory used: < 5%, < 25%, < 50%, < 75%, >75%; unknown before its first state.'),
  load: TagCounts('Connected devices per 5-minute load average as a percentage of one core, same buckets as memoryUsed.'),
  associations: TagCounts('Associated clients summed over connected devices, per band: 2G, 5G, 6G.'),
}, { title: 'DeviceDashboard', description: 'Fixed-bucket arrays list every bucket in the order shown, zeros included; the other arrays list the tags seen.' });

const AGE_BUCKETS = ['now', '>hour', '>day', '>week', '>month'] as const;
const PERCENT_BUCKETS = ['< 5%', '< 25%', '< 50%', '< 75%', '>75%'] as const;
const HEALTH_BUCKETS = ['100%', '>90%', '>60%', '<60%', 'unknown'] as const;
const CERTIFICATES: Record<DeviceStatus['verifiedCertificate'], string> = {
  NO_CERTIFICATE: 'no certificate', VALID_CERTIFICATE: 'non TIP certificate', MISMATCH_SERIAL: 'serial mismatch',
  VERIFIED: 'verified', SIMULATED: 'simulated',
};

/** Seconds -> age bucket. Upstream computed `now - lastContact` unsigned and underflowed. */
function ageBucket(seconds: number): (typeof AGE_BUCKETS)[number] {
  const s = Math.max(0, seconds);
  if (s < 3600) return 'now';
  if (s < 86_400) return '>hour';
  if (s < 7 * 86_400) return '>day';
  if (s < 30 * 86_400) return '>week';
  return '>month';
}

function percentBucket(pct: number): (typeof PERCENT_BUCKETS)[number] {
  return pct < 5 ? '< 5%' : pct < 25 ? '< 25%' : pct < 50 ? '< 50%' : pct < 75 ? '< 75%' : '>75%';
}

function healthBucket(sanity: number | undefined): (typeof HEALTH_BUCKETS)[number] {
  if (sanity === undefined) return 'unknown';
  return sanity >= 100 ? '100%' : sanity > 90 ? '>90%' : sanity > 60 ? '>60%' : '<60%';
}

/** A counter that answers `{tag, value}[]`: fixed buckets in their order, or seen tags sorted. */
class Tally {
  private readonly counts = new Map<string, number>();
  constructor(private readonly fixed?: readonly string[]) {
    for (const tag of fixed ?? []) this.counts.set(tag, 0);
  }
  add(tag: string, n = 1): void {
    this.counts.set(tag, (this.counts.get(tag) ?? 0) + n);
  }
  list(): { tag: string; value: number }[] {
    const entries = [...this.counts].map(([tag, value]) => ({ tag, value }));
    return this.fixed ? entries : entries.sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  }
}

export interface DashboardInput {
  now: number;
  devices: readonly Pick<Device, 'serialNumber' | 'compatible' | 'firmware' | 'lastRecordedContact'>[];
  /** Live status of a device, undefined when no link knows it. */
  statusOf: (serial: string) => LiveStatus | undefined;
  commandCounts: readonly { command: string; n: number }[];
  /** Sanity of each device's last stored health check. */
  lastSanity: ReadonlyMap<string, number>;
}

/** The dashboard figures: a pure function of records, live status and stored counts. */
export function computeDashboard(input: DashboardInput): Static<typeof Dashboard> {
  const { now, devices } = input;
  const t = {
    commands: new Tally(), vendors: new Tally(), deviceType: new Tally(), firmware: new Tally(),
    status: new Tally(['connected', 'not connected']), certificates: new Tally(Object.values(CERTIFICATES)),
    lastContact: new Tally([...AGE_BUCKETS, 'never']), healths: new Tally(HEALTH_BUCKETS), upTimes: new Tally([...AGE_BUCKETS, 'unknown']),
    memoryUsed: new Tally([...PERCENT_BUCKETS, 'unknown']), load: new Tally([...PERCENT_BUCKETS, 'unknown']), associations: new Tally(['2G', '5G', '6G']),
  };
  for (const r of input.commandCounts) t.commands.add(r.command, Number(r.n));
  for (const d of devices) {
    const live = input.statusOf(d.serialNumber);
    t.vendors.add(ouiVendor(d.serialNumber) || 'unknown');
    t.deviceType.add(d.compatible || 'unknown');
    t.firmware.add((live?.connected && live.firmware) || d.firmware || 'unknown');
    t.healths.add(healthBucket(input.lastSanity.get(d.serialNumber)));
    const contact = Math.max(live?.lastContact ?? 0, d.lastRecordedContact);
    t.lastContact.add(contact > 0 ? ageBucket(now - contact) : 'never');
    if (!live?.connected) {
      t.status.add('not connected');
      continue;
    }
    // Live figures are only meaningful while the device is connected (as upstream: connection map only).
    t.status.add('connected');
    t.certificates.add(CERTIFICATES[live.verifiedCertificate] ?? live.verifiedCertificate);
    // A state has not come yet (an AP's uptime is never 0): unknown, as a missing health check is,
    // not the best bucket its zeros would fall in.
    const reported = live.uptime > 0;
    t.upTimes.add(reported ? ageBucket(live.uptime) : 'unknown');
    t.memoryUsed.add(reported ? percentBucket(live.memoryUsed) : 'unknown');
    // The AP reports load averages as fractions of one core (state unit.load); upstream's /65536 was for raw kernel values.
    t.load.add(reported ? percentBucket(live.load * 100) : 'unknown');
    t.associations.add('2G', live.associations_2G);
    t.associations.add('5G', live.associations_5G);
    t.associations.add('6G', live.associations_6G);
  }
  const lists = Object.fromEntries(Object.entries(t).map(([key, tally]) => [key, tally.list()])) as Record<keyof typeof t, { tag: string; value: number }[]>;
  return { snapshot: now, numberOfDevices: devices.length, ...lists };
}

/** GET /deviceDashboard: fleet-wide counts from the device records, live status and DuckDB. */
export async function dashboardRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  api.get('/deviceDashboard', {
    schema: { tags: ['dashboard'], summary: 'Fleet-wide counts for a dashboard', response: { 200: Dashboard, ...errorResponses } },
  }, async () => {
    const [commandCounts, healthRows] = await Promise.all([
      deps.store.query<{ command: string; n: number }>('SELECT command, count(*) AS n FROM commands GROUP BY command'),
      deps.store.query<{ serial: string; sanity: number }>(
        'SELECT serial, sanity FROM health_checks QUALIFY row_number() OVER (PARTITION BY serial ORDER BY recorded DESC, id DESC) = 1',
      ),
    ]);
    return computeDashboard({
      now: nowSeconds(deps.clock), devices: deps.devices.all(), statusOf: (serial) => deps.status.status(serial),
      commandCounts, lastSanity: new Map(healthRows.map((r) => [r.serial, Number(r.sanity)])),
    });
  });
}
