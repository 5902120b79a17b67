import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { notFound } from '../../errors.js';
import { nowSeconds } from '../../protocol/clock.js';
import { normalizeSerial } from '../../protocol/serial.js';
import { errorResponses } from '../../server/schemas.js';
import type { GatewayDeps } from '../deps.js';
import { RadiusSession, sessionsOf, stationId } from '../radius-sessions.js';

/**
 * GET /radiusSessions/{serialNumber} (beyond the API documents; upstream
 * RESTAPI_radiussessions_handler): the accounting sessions of an AP's stations, from its last
 * state (src/gateway/radius-sessions.ts). `0` as the serial with `userName` or `mac` searches
 * every connected AP; `serialNumberOnly=true` lists the APs that have sessions.
 */
const Params = Type.Object({ serialNumber: Type.String({ description: 'An AP serial, or 0 with userName, mac or serialNumberOnly.' }) });
const Query = Type.Object({
  serialNumberOnly: Type.Optional(Type.Boolean({ description: 'Answer {serialNumbers} of the APs with sessions.' })),
  userName: Type.Optional(Type.String({ description: 'Sessions of this user (any AP); a MAC is also tried as the station.' })),
  mac: Type.Optional(Type.String({ description: 'Sessions of this station MAC (any AP).' })),
}, { additionalProperties: false });
const Answer = Type.Object({
  sessions: Type.Optional(Type.Array(RadiusSession)),
  serialNumbers: Type.Optional(Type.Array(Type.String())),
}, { description: 'sessions, or serialNumbers with serialNumberOnly=true.' });

const MAC = /^[0-9a-f]{2}([:-]?[0-9a-f]{2}){5}$/i;

export async function radiusSessionsRoutes(api: FastifyInstance, deps: GatewayDeps): Promise<void> {
  /** Sessions of every connected AP, in serial order. */
  const everyAp = () => {
    const now = nowSeconds(deps.clock);
    return deps.devices.all().flatMap((d) => (deps.status.status(d.serialNumber)?.connected
      ? sessionsOf(d.serialNumber, deps.status.lastState(d.serialNumber), now) : []));
  };
  const byMac = (mac: string) => {
    const id = stationId(mac.replace(/[:-]/g, '').replace(/(..)(?=.)/g, '$1-'));
    return everyAp().filter((s) => s.callingStationId === id);
  };

  api.get('/radiusSessions/:serialNumber', {
    schema: {
      tags: ['radius'], summary: "An AP's RADIUS accounting sessions (its associated stations)",
      params: Params, querystring: Query, response: { 200: Answer, ...errorResponses },
    },
  }, async (req) => {
    const q = req.query as Static<typeof Query>;
    if (q.serialNumberOnly) return { serialNumbers: [...new Set(everyAp().map((s) => s.serialNumber))] };
    if (q.userName) {
      const name = q.userName.toLowerCase();
      const sessions = everyAp().filter((s) => s.userName.toLowerCase() === name);
      if (sessions.length > 0 || !MAC.test(q.userName)) return { sessions };
      return { sessions: byMac(q.userName) };
    }
    if (q.mac) return { sessions: MAC.test(q.mac) ? byMac(q.mac) : [] };
    const serial = normalizeSerial((req.params as Static<typeof Params>).serialNumber);
    if (!deps.devices.has(serial)) throw notFound('serialNumber', `Device ${serial} does not exist.`);
    const live = deps.status.status(serial);
    return { sessions: live?.connected ? sessionsOf(serial, deps.status.lastState(serial), nowSeconds(deps.clock)) : [] };
  });
}
