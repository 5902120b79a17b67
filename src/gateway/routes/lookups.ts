import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { badRequest } from '../../errors.js';
import { errorResponses } from '../../server/schemas.js';
import { ipCountry, macHex, ouiVendor } from '../offline-lookups.js';
import type { GatewayDeps } from '../deps.js';

/** Upstream caps nothing; a query string this long is already unusual. */
const MAX_ITEMS = 1000;

const TagList = Type.Object({
  tagList: Type.Array(Type.Object({
    tag: Type.String({ description: 'The MAC as sent.' }),
    value: Type.String({ description: "Organisation holding the prefix (first line of the IEEE entry); '' if unregistered." }),
  })),
}, { title: 'OuiList' });

const IpToCountry = Type.Object({
  enabled: Type.Boolean({ description: 'Always true: the database is bundled.' }),
  countryCodes: Type.Array(Type.String(), { description: "ISO 3166-1 alpha-2, one per IP in order; '' for private, reserved or unlisted addresses." }),
}, { $id: 'IpToCountry', title: 'IpToCountry' });

/** Splits a comma-separated list; empty is a 400 naming `field`. */
function listOf(value: string, field: string): string[] {
  const items = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) throw badRequest(field, `${field} must list at least one value, comma-separated.`);
  if (items.length > MAX_ITEMS) throw badRequest(field, `${field} lists ${items.length} values; at most ${MAX_ITEMS} per request.`);
  return items;
}

/** GET /ouis and GET /iptocountry, answered from bundled offline databases (see offline-lookups.ts). */
export async function lookupsRoutes(api: FastifyInstance, _deps: GatewayDeps): Promise<void> {
  const OuiQuery = Type.Object({
    macList: Type.String({ description: 'Comma-separated MAC addresses or prefixes (6-12 hex digits; ":", "-", "." separators allowed).' }),
  });
  api.get('/ouis', {
    schema: {
      tags: ['lookups'], summary: 'Manufacturer per MAC, from the bundled IEEE OUI registry (oui-data)',
      querystring: OuiQuery, response: { 200: TagList, ...errorResponses },
    },
  }, async (req) => {
    const macs = listOf((req.query as Static<typeof OuiQuery>).macList, 'macList');
    return {
      tagList: macs.map((mac, i) => {
        const hex = macHex(mac);
        if (!hex) throw badRequest(`macList[${i}]`, `macList[${i}] '${mac}' is not a MAC address or prefix (6 to 12 hex digits).`);
        return { tag: mac, value: ouiVendor(hex) };
      }),
    };
  });

  const IpQuery = Type.Object({ iplist: Type.String({ description: 'Comma-separated IPv4/IPv6 addresses.' }) });
  api.get('/iptocountry', {
    schema: {
      tags: ['lookups'], summary: 'Country code per IP, from the bundled GeoLite2 Country database (geoip-country)',
      querystring: IpQuery, response: { 200: IpToCountry, ...errorResponses },
    },
  }, async (req) => {
    const ips = listOf((req.query as Static<typeof IpQuery>).iplist, 'iplist');
    const bad = ips.findIndex((ip) => isIP(ip) === 0);
    if (bad >= 0) throw badRequest(`iplist[${bad}]`, `iplist[${bad}] '${ips[bad]}' is not an IPv4 or IPv6 address.`);
    return { enabled: true, countryCodes: ips.map(ipCountry) };
  });
}
