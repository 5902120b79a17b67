import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { notFound, airtwinError } from '../../errors.js';
import { nowSeconds } from '../../protocol/clock.js';
import { normalizeSerial, serialToMac } from '../../protocol/serial.js';
import { Device } from '../../store/records.js';
import { errorResponses, SerialParam } from '../../server/schemas.js';
import { DeviceInput, ValidateResponse } from '../schemas/device.js';
import { parseConfiguration } from '../configuration.js';
import type { GatewayDeps } from '../deps.js';

type DeviceBody = Static<typeof DeviceInput>;
type Unlisted = Omit<Device, 'blackListed'>;

/** The device record with its blacklist flag, as every route here answers it. */
const withBlacklist = (deps: GatewayDeps, d: Unlisted): Device => ({ ...d, blackListed: deps.isBlacklisted(d.serialNumber) });

const pathSerial = (req: FastifyRequest): string => normalizeSerial((req.params as Static<typeof SerialParam>).serialNumber);

/** 400 SERIAL_MISMATCH when the body names another serial than the path. */
function sameSerial(body: DeviceBody, serial: string): void {
  if (body.serialNumber !== undefined && normalizeSerial(body.serialNumber, 'body.serialNumber') !== serial) {
    throw airtwinError('SERIAL_MISMATCH', 'serialNumber', `body.serialNumber ${body.serialNumber} differs from the path serial ${serial}.`);
  }
}

export async function deviceRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  api.get('/device/:serialNumber', {
    config: { wire: 'device' },
    schema: { tags: ['devices'], summary: 'Get a device', params: SerialParam, response: { 200: Device, ...errorResponses } },
  }, async (req) => {
    const serial = pathSerial(req);
    const d = deps.devices.get(serial);
    if (!d) throw notFound('serialNumber', `Device ${serial} does not exist.`);
    return withBlacklist(deps, d);
  });
  await createRoute(api, deps);
  await updateRoute(api, deps);
  api.delete('/device/:serialNumber', {
    schema: { tags: ['devices'], summary: 'Delete a device and everything recorded for it (admin)', params: SerialParam, response: { 204: Type.Null(), ...errorResponses } },
  }, async (req, reply) => {
    await deps.devices.delete(pathSerial(req));
    return reply.deleted();
  });
}

/** The record a POST creates; throws the coded 400s (and ALREADY_EXISTS) a validateOnly call reports. */
function newDevice(deps: GatewayDeps, serial: string, body: DeviceBody, createdBy: string): Unlisted {
  sameSerial(body, serial);
  const now = nowSeconds(deps.clock);
  const config = parseConfiguration(body.configuration ?? {});
  // spec: UUID is the configuration's version; a new record starts at "now" unless the body says otherwise.
  const uuid = typeof config.uuid === 'number' && config.uuid > 0 ? config.uuid : body.UUID !== undefined ? Number(body.UUID) : now;
  config.uuid = uuid;
  const device: Unlisted = {
    serialNumber: serial,
    deviceType: (body.deviceType ?? 'AP').toUpperCase(),
    macAddress: body.macAddress ? serialToMac(normalizeSerial(body.macAddress, 'macAddress')) : serialToMac(serial),
    manufacturer: body.manufacturer ?? '',
    UUID: uuid,
    configuration: JSON.stringify(config),
    notes: (body.notes ?? []).map((n) => ({ note: n.note, created: now, createdBy })),
    createdTimestamp: now, lastConfigurationChange: now, lastConfigurationDownload: 0,
    firmware: body.firmware ?? '', devicePassword: body.devicePassword ?? '', owner: body.owner ?? '',
    location: body.location ?? '', venue: body.venue ?? '', subscriber: body.subscriber ?? '', entity: body.entity ?? '',
    modified: now, locale: (body.locale ?? '').toUpperCase(), compatible: body.compatible ?? '',
    lastFWUpdate: 0, lastRecordedContact: 0, simulated: false, connectReason: '',
  };
  if (deps.devices.has(serial)) throw airtwinError('ALREADY_EXISTS', 'serialNumber', `Device ${serial} exists already.`);
  return device;
}

async function createRoute(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  api.post('/device/:serialNumber', {
    config: { wire: 'deviceCreate' },
    schema: {
      tags: ['devices'], summary: 'Create a device (validateOnly=true checks without storing)',
      params: SerialParam, querystring: Type.Object({ validateOnly: Type.Optional(Type.Boolean()) }), body: DeviceInput,
      response: { 200: Type.Union([Device, ValidateResponse]), ...errorResponses },
    },
  }, async (req) => {
    const serial = pathSerial(req);
    const validateOnly = (req.query as { validateOnly?: boolean }).validateOnly === true;
    let device: Unlisted;
    try {
      device = newDevice(deps, serial, req.body as DeviceBody, req.principal.subject);
    } catch (e) {
      if (validateOnly && e instanceof Error && 'status' in e && (e as { status: number }).status === 400) {
        return { valid: false, error: e.message };
      }
      throw e;
    }
    if (validateOnly) return { valid: true };
    return withBlacklist(deps, await deps.devices.insert(device));
  });
}

async function updateRoute(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  api.put('/device/:serialNumber', {
    config: { wire: 'device' },
    schema: {
      tags: ['devices'], summary: 'Update a device: venue, owner, location, subscriber, entity, locale, devicePassword, configuration; notes are appended',
      params: SerialParam, body: DeviceInput, response: { 200: Device, ...errorResponses },
    },
  }, async (req) => {
    const serial = pathSerial(req);
    const body = req.body as DeviceBody;
    if (!deps.devices.has(serial)) throw notFound('serialNumber', `Device ${serial} does not exist.`);
    sameSerial(body, serial);
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
    return withBlacklist(deps, updated);
  });
}
