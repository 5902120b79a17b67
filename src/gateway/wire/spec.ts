import { Type } from 'typebox';
import { ok } from '../../server/schemas.js';
import type { WireShapes } from '../../server/wire/profile.js';

/**
 * The gateway's response shapes on the `spec` wire: the canonical results already follow the API
 * document, except where a route's canonical answer says more than the spec's.
 */
export const SPEC_SHAPES: WireShapes = {
  // spec: PUT default_configuration answers an OperationResult; the route's result is the updated record.
  defaultConfigUpdated: { schema: Type.Ref('OperationResult'), toWire: () => ok('PUT') },
};
