import type { WireName, WireShapes } from '../../server/wire/profile.js';
import { OPENWIFI_SHAPES } from './openwifi.js';
import { SPEC_SHAPES } from './spec.js';

/** The gateway's response shapes on each wire; routes name theirs in `config.wire`. */
export const GATEWAY_SHAPES: Readonly<Record<WireName, WireShapes>> = { openwifi: OPENWIFI_SHAPES, spec: SPEC_SHAPES };
