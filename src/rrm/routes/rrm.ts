import type { FastifyInstance } from 'fastify';
import type { RrmDeps } from '../deps.js';

/** Not written yet: the RRM endpoints belong to the RRM issue. */
export async function rrmRoutes(_api: FastifyInstance, _deps: RrmDeps): Promise<void> {}
