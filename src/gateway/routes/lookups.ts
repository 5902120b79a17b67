import type { FastifyInstance } from 'fastify';
import type { GatewayDeps } from '../deps.js';

/** Not written yet: see the open issue that owns these endpoints. */
export async function lookupsRoutes(_api: FastifyInstance, _deps: GatewayDeps): Promise<void> {}
