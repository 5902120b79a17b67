import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../../server/schemas.js';
import type { GatewayDeps } from '../deps.js';
import { DeviceTypes } from '../schemas/device-data.js';

/**
 * GET /capabilities: one entry per compatible, from the capabilities stored per device
 * (docs/upstream.md#other-gateway-routes).
 */
export async function capabilitiesRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  api.get('/capabilities', {
    config: { wire: 'deviceTypes' },
    schema: { tags: ['device data'], summary: 'Device types and their capabilities', response: { 200: DeviceTypes, ...errorResponses } },
  }, async () => ({ device_types: await deps.deviceData.deviceTypes() }));
}
