import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { notFound, airtwinError } from '../../errors.js';
import { nowSeconds } from '../../protocol/clock.js';
import { offlineStatus, DeviceStatus } from '../../protocol/device-status.js';
import { normalizeSerial, serialToMac } from '../../protocol/serial.js';
import { Device } from '../../store/records.js';
import { errorResponses, Pagination, page, SerialParam } from '../../server/schemas.js';
import { DeviceInput } from '../schemas/device.js';
import { parseConfiguration } from '../configuration.js';
import { ORDERABLE_FIELDS, parseFilter, parseOrderBy } from '../device-query.js';
import type { GatewayDeps } from '../deps.js';

const DeviceWithStatus = Type.Object({ ...Device.properties, ...DeviceStatus.properties });

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
}, { additionalProperties: false });

const ListResponse = Type.Object({
  devices: Type.Optional(Type.Array(Device)),
  devicesWithStatus: Type.Optional(Type.Array(DeviceWithStatus)),
  serialNumbers: Type.Optional(Type.Array(Type.String())),
  count: Type.Optional(Type.Integer()),
  list: Type.Optional(Type.Array(Type.String())),
  averageConnectionTime: Type.Optional(Type.Number()),
  connectedDevices: Type.Optional(Type.Integer()),
  connectingDevices: Type.Optional(Type.Integer()),
}, { description: 'One of: devices, devicesWithStatus, serialNumbers, count, list (orderSpec) or the connection statistics.' });

const ValidateResponse = Type.Object({ valid: Type.Boolean(), error: Type.Optional(Type.String()) });

export async function deviceRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const withBlacklist = (d: Omit<Device, 'blackListed'>): Device => ({ ...d, blackListed: deps.isBlacklisted(d.serialNumber) });
  const statusOf = (d: Omit<Device, 'blackListed'>) => deps.status.status(d.serialNumber) ?? offlineStatus(d.serialNumber, d.firmware, d.UUID, d.lastRecordedContact);

  api.get('/devices', {
    schema: { tags: ['devices'], summary: 'List devices', querystring: ListQuery, response: { 200: ListResponse, ...errorResponses } },
  }, async (req) => {
    const q = req.query as Static<typeof ListQuery>;
    if (q.connectionStatistics) return deps.status.connectionStatistics();
    if (q.orderSpec) return { list: [...ORDERABLE_FIELDS] };
    const compare = parseOrderBy(q.orderBy);
    const matches = parseFilter(q.filter);
    let devices = deps.devices.all();
    if (q.select !== undefined) {
      const wanted = new Set(q.select.split(',').map((s) => s.trim()).filter(Boolean).map((s) => normalizeSerial(s, 'select')));
      devices = devices.filter((d) => wanted.has(d.serialNumber));
    }
    devices = devices.filter(matches);
    if (q.countOnly) return { count: devices.length };
    // all() is sorted by serial already, which is the default order: only orderBy needs a sort.
    devices = page(q.orderBy ? devices.sort(compare) : devices, q.offset, q.limit);
    if (q.serialOnly) return { serialNumbers: devices.map((d) => d.serialNumber) };
    if (q.deviceWithStatus) return { devicesWithStatus: devices.map((d) => ({ ...withBlacklist(d), ...statusOf(d), firmware: d.firmware || statusOf(d).firmware })) };
    return { devices: devices.map(withBlacklist) };
  });

  api.get('/device/:serialNumber', {
    schema: { tags: ['devices'], summary: 'Get a device', params: SerialParam, response: { 200: Device, ...errorResponses } },
  }, async (req) => {
    const serial = normalizeSerial((req.params as Static<typeof SerialParam>).serialNumber);
    const d = deps.devices.get(serial);
    if (!d) throw notFound('serialNumber', `Device ${serial} does not exist.`);
    return withBlacklist(d);
  });

  api.post('/device/:serialNumber', {
    schema: {
      tags: ['devices'], summary: 'Create a device (validateOnly=true checks without storing)',
      params: SerialParam, querystring: Type.Object({ validateOnly: Type.Optional(Type.Boolean()) }), body: DeviceInput,
      response: { 200: Type.Union([Device, ValidateResponse]), ...errorResponses },
    },
  }, async (req) => {
    const serial = normalizeSerial((req.params as Static<typeof SerialParam>).serialNumber);
    const body = req.body as Static<typeof DeviceInput>;
    const validateOnly = (req.query as { validateOnly?: boolean }).validateOnly === true;
    let device: Omit<Device, 'blackListed'>;
    try {
      if (body.serialNumber !== undefined && normalizeSerial(body.serialNumber, 'body.serialNumber') !== serial) {
        throw airtwinError('SERIAL_MISMATCH', 'serialNumber', `body.serialNumber ${body.serialNumber} differs from the path serial ${serial}.`);
      }
      const now = nowSeconds(deps.clock);
      const config = parseConfiguration(body.configuration ?? {});
      // spec: UUID is the configuration's version; a new record starts at "now" unless the body says otherwise.
      const uuid = typeof config.uuid === 'number' && config.uuid > 0 ? config.uuid : body.UUID ?? now;
      config.uuid = uuid;
      device = {
        serialNumber: serial,
        deviceType: (body.deviceType ?? 'AP').toUpperCase(),
        macAddress: body.macAddress ? serialToMac(normalizeSerial(body.macAddress, 'macAddress')) : serialToMac(serial),
        manufacturer: body.manufacturer ?? '',
        UUID: uuid,
        configuration: JSON.stringify(config),
        notes: (body.notes ?? []).map((n) => ({ note: n.note, created: now, createdBy: req.principal.subject })),
        createdTimestamp: now, lastConfigurationChange: now, lastConfigurationDownload: 0,
        firmware: body.firmware ?? '', devicePassword: body.devicePassword ?? '', owner: body.owner ?? '',
        location: body.location ?? '', venue: body.venue ?? '', subscriber: body.subscriber ?? '', entity: body.entity ?? '',
        modified: now, locale: (body.locale ?? '').toUpperCase(), compatible: body.compatible ?? '',
        lastFWUpdate: 0, lastRecordedContact: 0, simulated: false, connectReason: '',
      };
      if (deps.devices.has(serial)) throw airtwinError('ALREADY_EXISTS', 'serialNumber', `Device ${serial} exists already.`);
    } catch (e) {
      if (validateOnly && e instanceof Error && 'status' in e && (e as { status: number }).status === 400) {
        return { valid: false, error: e.message };
      }
      throw e;
    }
    if (validateOnly) return { valid: true };
    return withBlacklist(await deps.devices.insert(device));
  });

  api.put('/device/:serialNumber', {
    schema: {
      tags: ['devices'], summary: 'Update a device: venue, owner, location, subscriber, entity, locale, devicePassword, configuration; notes are appended',
      params: SerialParam, body: DeviceInput, response: { 200: Device, ...errorResponses },
    },
  }, async (req) => {
    const serial = normalizeSerial((req.params as Static<typeof SerialParam>).serialNumber);
    const body = req.body as Static<typeof DeviceInput>;
    const current = deps.devices.get(serial);
    if (!current) throw notFound('serialNumber', `Device ${serial} does not exist.`);
    if (body.serialNumber !== undefined && normalizeSerial(body.serialNumber, 'body.serialNumber') !== serial) {
      throw airtwinError('SERIAL_MISMATCH', 'serialNumber', `body.serialNumber ${body.serialNumber} differs from the path serial ${serial}.`);
    }
    const now = nowSeconds(deps.clock);
    const next = { ...current, modified: now };
    for (const key of ['venue', 'owner', 'location', 'subscriber', 'entity', 'devicePassword'] as const) {
      if (body[key] !== undefined) next[key] = body[key];
    }
    if (body.locale !== undefined) next.locale = body.locale.toUpperCase();
    if (body.configuration !== undefined) {
      const config = parseConfiguration(body.configuration);
      // A new configuration is a new version; the AP gets it at its next contact (reconciliation).
      next.UUID = Math.max(now, current.UUID + 1);
      config.uuid = next.UUID;
      next.configuration = JSON.stringify(config);
      next.lastConfigurationChange = now;
    }
    if (body.notes) next.notes = [...current.notes, ...body.notes.map((n) => ({ note: n.note, created: now, createdBy: req.principal.subject }))];
    return withBlacklist(await deps.devices.update(next));
  });

  api.delete('/device/:serialNumber', {
    config: { adminOnly: true },
    schema: { tags: ['devices'], summary: 'Delete a device and everything recorded for it (admin)', params: SerialParam, response: { 204: Type.Null(), ...errorResponses } },
  }, async (req, reply) => {
    const serial = normalizeSerial((req.params as Static<typeof SerialParam>).serialNumber);
    await deps.devices.delete(serial);
    return reply.status(204).send();
  });

}
