import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../../server/schemas.js';
import type { GatewayDeps } from '../deps.js';

/** spec "DeviceTypes". */
const DeviceTypes = Type.Object({
  device_types: Type.Array(Type.Object({
    deviceType: Type.String({ description: 'The `compatible` model id the APs report.' }),
    capabilities: Type.String({ description: 'JSON text: the latest capabilities object stored for a device of this type.' }),
  })),
}, { $id: 'DeviceTypes', title: 'DeviceTypes' });

/** GET /capabilities: one entry per compatible, from the capabilities stored per device (reference §2.8). */
export async function capabilitiesRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  api.get('/capabilities', {
    schema: { tags: ['device data'], summary: 'Device types and their capabilities', response: { 200: DeviceTypes, ...errorResponses } },
  }, async () => ({ device_types: await deps.deviceData.deviceTypes() }));
}
