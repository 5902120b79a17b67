import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { badRequest } from '../../errors.js';
import { normalizeSerial } from '../../protocol/serial.js';
import type { Device } from '../../store/records.js';
import { errorResponses, Pagination, page } from '../../server/schemas.js';
import { DeviceListResponse } from '../schemas/device.js';
import { ORDERABLE_FIELDS, parseFilter, parseOrderBy } from '../device-query.js';
import type { GatewayDeps } from '../deps.js';
import { deviceStatus } from '../live-status.js';

type Stored = Omit<Device, 'blackListed'>;

const Platform = Type.Optional(Type.String({
  pattern: '^([Aa][Ll][Ll]|[Aa][Pp]|[Ss][Ww][Ii][Tt][Cc][Hh])$', description: 'ALL (no filter), AP or SWITCH, any case.',
}));

const ListQuery = Type.Object({
  ...Pagination,
  filter: Type.Optional(Type.String({ description: 'See README "Filter syntax": bare words and field:value terms.' })),
  select: Type.Optional(Type.String({ description: 'Comma-separated serial numbers.' })),
  serialOnly: Type.Optional(Type.Boolean()),
  countOnly: Type.Optional(Type.Boolean()),
  deviceWithStatus: Type.Optional(Type.Boolean()),
  orderBy: Type.Optional(Type.String({ description: 'field:a|d,... over Device fields.' })),
  orderSpec: Type.Optional(Type.Boolean()),
  connectionStatistics: Type.Optional(Type.Boolean()),
  platform: Platform,
  health: Type.Optional(Type.Boolean({ description: 'Answer {serialNumbers} of the connected devices whose last health check sanity is in [lowLimit, highLimit].' })),
  lowLimit: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'With health: lowest sanity (default 30).' })),
  highLimit: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'With health: highest sanity (default 80).' })),
}, { additionalProperties: false });
type ListQuery = Static<typeof ListQuery>;

const DeleteQuery = Type.Object({
  macPattern: Type.Optional(Type.String({ description: 'Serials to delete: hex digits with * wildcards, any case (separators ignored).' })),
  simulatedDevices: Type.Optional(Type.Boolean({ description: 'true: delete every simulated device.' })),
  simulatedOnly: Type.Optional(Type.Boolean({ description: 'With macPattern or oldestContact: only simulated devices.' })),
  oldestContact: Type.Optional(Type.Integer({ minimum: 1, description: 'Delete devices last heard from before this time (epoch s; never heard from: kept).' })),
  select: Type.Optional(Type.String({ description: 'Comma-separated serial numbers to delete.' })),
}, { additionalProperties: false });

/** upstream: a device's `platform` filter is its type; ALL (any case) is no filter. */
function platformMatch(platform: string | undefined): (d: Stored) => boolean {
  const want = platform?.toUpperCase();
  return !want || want === 'ALL' ? () => true : (d) => d.deviceType.toUpperCase() === want;
}

/** `*` is any run of characters; the rest must be hex digits (separators dropped). */
function macPatternMatch(pattern: string): (d: Stored) => boolean {
  const p = pattern.toLowerCase().replace(/[:-]/g, '');
  if (!/^[0-9a-f*]{1,12}$/.test(p) || !p.replace(/\*/g, '')) throw badRequest('macPattern', `macPattern ${JSON.stringify(pattern)} must be hex digits with * wildcards.`);
  const re = new RegExp(`^${p.replace(/\*/g, '.*')}$`);
  return (d) => re.test(d.serialNumber);
}

function parseSelect(select: string): Set<string> {
  return new Set(select.split(',').map((s) => s.trim()).filter(Boolean).map((s) => normalizeSerial(s, 'select')));
}

/** GET /devices (spec "Devices") and DELETE /devices (docs/upstream.md#other-gateway-routes). */
export async function deviceListRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const withBlacklist = (d: Stored): Device => ({ ...d, blackListed: deps.isBlacklisted(d.serialNumber) });

  /** health=true: connected devices whose last sanity is within the limits (upstream defaults 30..80). */
  const healthy = (devices: Stored[], q: ListQuery) => {
    const [low, high] = [q.lowLimit ?? 30, q.highLimit ?? 80];
    return devices.filter((d) => {
      const st = deps.status.status(d.serialNumber);
      return st?.connected === true && st.sanity >= low && st.sanity <= high;
    });
  };

  api.get('/devices', {
    config: { wire: 'deviceList' },
    schema: { tags: ['devices'], summary: 'List devices', querystring: ListQuery, response: { 200: DeviceListResponse, ...errorResponses } },
  }, async (req) => {
    const q = req.query as ListQuery;
    if (q.connectionStatistics) {
      const st = deps.status.connectionStatistics();
      return { ...st, averageConnectionTime: Math.round(st.averageConnectionTime) };
    }
    if (q.orderSpec) return { list: [...ORDERABLE_FIELDS] };
    const compare = parseOrderBy(q.orderBy);
    const matches = parseFilter(q.filter);
    const onPlatform = platformMatch(q.platform);
    let devices = deps.devices.all();
    if (q.select !== undefined) {
      const wanted = parseSelect(q.select);
      devices = devices.filter((d) => wanted.has(d.serialNumber));
    }
    devices = devices.filter((d) => onPlatform(d) && matches(d));
    if (q.health) return { serialNumbers: healthy(devices, q).map((d) => d.serialNumber) };
    if (q.countOnly) return { count: devices.length };
    // all() is sorted by serial already, which is the default order: only orderBy needs a sort.
    devices = page(q.orderBy ? devices.sort(compare) : devices, q.offset, q.limit);
    if (q.serialOnly) return { serialNumbers: devices.map((d) => d.serialNumber) };
    if (q.deviceWithStatus) {
      return {
        devicesWithStatus: devices.map((d) => {
          const st = deviceStatus(deps.status, d);
          return { ...withBlacklist(d), ...st, firmware: d.firmware || st.firmware };
        }),
      };
    }
    return { devices: devices.map(withBlacklist) };
  });

  api.delete('/devices', {
    schema: {
      tags: ['devices'], summary: 'Delete many devices (admin): by macPattern, select, oldestContact, or every simulated one',
      description: 'One of simulatedDevices=true, select, oldestContact or macPattern is required (400 naming macPattern otherwise). '
        + 'Each deleted device loses everything recorded for it, as DELETE /device/{serialNumber}.',
      querystring: DeleteQuery, response: { 204: Type.Null(), ...errorResponses },
    },
  }, async (req, reply) => {
    const q = req.query as Static<typeof DeleteQuery>;
    const simulatedOnly = (d: Stored) => q.simulatedOnly !== true || d.simulated;
    let chosen: (d: Stored) => boolean;
    if (q.simulatedDevices) chosen = (d) => d.simulated;
    else if (q.select !== undefined) {
      const wanted = parseSelect(q.select);
      chosen = (d) => wanted.has(d.serialNumber);
    } else if (q.oldestContact !== undefined) {
      const before = q.oldestContact;
      chosen = (d) => simulatedOnly(d) && d.lastRecordedContact > 0 && d.lastRecordedContact < before;
    } else if (q.macPattern !== undefined) {
      const match = macPatternMatch(q.macPattern);
      chosen = (d) => simulatedOnly(d) && match(d);
    } else throw badRequest('macPattern', 'Say which devices: macPattern, select, oldestContact or simulatedDevices=true.');
    for (const d of deps.devices.all().filter(chosen)) await deps.devices.delete(d.serialNumber);
    return reply.deleted();
  });
}
