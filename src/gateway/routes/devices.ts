// Long by design: one route plugin declaring each /devices route with its schema; every handler is short.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { notFound, airtwinError } from '../../errors.js';
import { nowSeconds } from '../../protocol/clock.js';
import { normalizeSerial, serialToMac } from '../../protocol/serial.js';
import { Device } from '../../store/records.js';
import { errorResponses, SerialParam } from '../../server/schemas.js';
import { DeviceInput, ValidateResponse } from '../schemas/device.js';
import { parseConfiguration } from '../configuration.js';
import type { GatewayDeps } from '../deps.js';

export async function deviceRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const withBlacklist = (d: Omit<Device, 'blackListed'>): Device => ({ ...d, blackListed: deps.isBlacklisted(d.serialNumber) });

  api.get('/device/:serialNumber', {
    config: { wire: 'device' },
    schema: { tags: ['devices'], summary: 'Get a device', params: SerialParam, response: { 200: Device, ...errorResponses } },
  }, async (req) => {
    const serial = normalizeSerial((req.params as Static<typeof SerialParam>).serialNumber);
    const d = deps.devices.get(serial);
    if (!d) throw notFound('serialNumber', `Device ${serial} does not exist.`);
    return withBlacklist(d);
  });

  api.post('/device/:serialNumber', {
    config: { wire: 'deviceCreate' },
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
      const uuid = typeof config.uuid === 'number' && config.uuid > 0 ? config.uuid : body.UUID !== undefined ? Number(body.UUID) : now;
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
    config: { wire: 'device' },
    schema: {
      tags: ['devices'], summary: 'Update a device: venue, owner, location, subscriber, entity, locale, devicePassword, configuration; notes are appended',
      params: SerialParam, body: DeviceInput, response: { 200: Device, ...errorResponses },
    },
  }, async (req) => {
    const serial = normalizeSerial((req.params as Static<typeof SerialParam>).serialNumber);
    const body = req.body as Static<typeof DeviceInput>;
    if (!deps.devices.has(serial)) throw notFound('serialNumber', `Device ${serial} does not exist.`);
    if (body.serialNumber !== undefined && normalizeSerial(body.serialNumber, 'body.serialNumber') !== serial) {
      throw airtwinError('SERIAL_MISMATCH', 'serialNumber', `body.serialNumber ${body.serialNumber} differs from the path serial ${serial}.`);
    }
    const config = body.configuration !== undefined ? parseConfiguration(body.configuration) : undefined;
    const notes = body.notes ?? [];
    // Applied to the record as it is when this write runs (DevicesRepo.update queues writes), so
    // concurrent PUTs each append their notes and each configuration gets its own, larger UUID.
    const updated = await deps.devices.update(serial, (current) => {
      const now = nowSeconds(deps.clock);
      const next = { ...current, modified: now };
      for (const key of ['venue', 'owner', 'location', 'subscriber', 'entity', 'devicePassword'] as const) {
        if (body[key] !== undefined) next[key] = body[key];
      }
      if (body.locale !== undefined) next.locale = body.locale.toUpperCase();
      if (config) {
        // A new configuration is a new version; the AP gets it at its next contact (reconciliation).
        next.UUID = Math.max(now, current.UUID + 1);
        next.configuration = JSON.stringify({ ...config, uuid: next.UUID });
        next.lastConfigurationChange = now;
      }
      if (notes.length > 0) next.notes = [...current.notes, ...notes.map((n) => ({ note: n.note, created: now, createdBy: req.principal.subject }))];
      return next;
    });
    return withBlacklist(updated);
  });

  api.delete('/device/:serialNumber', {
    schema: { tags: ['devices'], summary: 'Delete a device and everything recorded for it (admin)', params: SerialParam, response: { 204: Type.Null(), ...errorResponses } },
  }, async (req, reply) => {
    const serial = normalizeSerial((req.params as Static<typeof SerialParam>).serialNumber);
    await deps.devices.delete(serial);
    return reply.deleted();
  });
}
