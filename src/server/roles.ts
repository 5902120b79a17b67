import { forbidden } from '../errors.js';

/**
 * Who may write what, for both services: the role every write route needs, in one table, checked
 * in one place (`registerApi`'s hooks, src/server/build-app.ts). docs/roles.md shows the same table
 * (a test keeps them in step) and a write route missing here fails the service's start, so no
 * write is ever open to every role by omission. Reads (GET) need a valid token of any role.
 *
 * - `user`: any authenticated role. Looking after devices one at a time: records, commands that
 *   leave the AP as it is or change its configuration, firmware or radios, one AP's RRM layer.
 * - `admin`: the roles in ADMIN_ROLES. What cannot be undone or reaches past one device: deleting
 *   devices or any history (commands, logs, health checks, statistics, capabilities, files), a
 *   factory reset, an inline script (code run on the AP as root; upstream lets only root send
 *   one) and the stored scripts, the blacklist, default configurations and firmwares (every new
 *   AP of a model or type gets them),
 *   the RADIUS proxy, the RRM's topology and its network and zone layers, and log levels.
 */
export type Access = 'user' | 'admin';

/** Roles that pass `admin` (the OpenWiFi security service's root and admin). */
export const ADMIN_ROLES: ReadonlySet<string> = new Set(['root', 'admin']);

/** `METHOD /path` as the route is registered under /api/v1 (Fastify's `:param` form). */
export const WRITE_ACCESS: Readonly<Record<string, Access>> = {
  // device gateway: device records
  'POST /device/:serialNumber': 'user',
  'PUT /device/:serialNumber': 'user',
  'DELETE /device/:serialNumber': 'admin',
  'DELETE /devices': 'admin',
  // device gateway: commands to a device
  'POST /device/:serialNumber/command': 'user',
  'POST /device/:serialNumber/configure': 'user',
  'POST /device/:serialNumber/upgrade': 'user',
  'POST /device/:serialNumber/reboot': 'user',
  'POST /device/:serialNumber/factory': 'admin',
  'POST /device/:serialNumber/leds': 'user',
  'POST /device/:serialNumber/trace': 'user',
  'POST /device/:serialNumber/wifiscan': 'user',
  'POST /device/:serialNumber/request': 'user',
  'POST /device/:serialNumber/eventqueue': 'user',
  'POST /device/:serialNumber/script': 'user',
  'POST /device/:serialNumber/ping': 'user',
  'POST /device/:serialNumber/telemetry': 'user',
  // device gateway: history a device left
  'DELETE /device/:serialNumber/logs': 'admin',
  'DELETE /device/:serialNumber/healthchecks': 'admin',
  'DELETE /device/:serialNumber/statistics': 'admin',
  'DELETE /device/:serialNumber/capabilities': 'admin',
  'DELETE /commands': 'admin',
  'DELETE /command/:commandUUID': 'admin',
  'DELETE /file/:uuid': 'admin',
  // device gateway: what applies to many devices
  'POST /blacklist/:serialNumber': 'admin',
  'PUT /blacklist/:serialNumber': 'admin',
  'DELETE /blacklist/:serialNumber': 'admin',
  'POST /default_configuration/:name': 'admin',
  'PUT /default_configuration/:name': 'admin',
  'DELETE /default_configuration/:name': 'admin',
  'POST /default_firmware/:deviceType': 'admin',
  'PUT /default_firmware/:deviceType': 'admin',
  'DELETE /default_firmware/:deviceType': 'admin',
  'PUT /radiusProxyConfig': 'admin',
  'DELETE /radiusProxyConfig': 'admin',
  'POST /script/:id': 'admin',
  'PUT /script/:id': 'admin',
  'DELETE /script/:id': 'admin',
  // device gateway: the venue view (a computation: nothing is written)
  'POST /venue/heatmap': 'user',
  // both services
  'POST /system': 'admin',
  // RRM service
  'POST /setTopology': 'admin',
  'POST /setDeviceNetworkConfig': 'admin',
  'POST /setDeviceZoneConfig': 'admin',
  'POST /setDeviceApConfig': 'user',
  'POST /modifyDeviceApConfig': 'user',
  'PUT /runRRM': 'user',
};

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** AP methods whose endpoint has another name (`event` is sent by POST .../eventqueue). */
const ENDPOINT_OF: Readonly<Record<string, string>> = { event: 'eventqueue' };
const field = (body: unknown, name: string): unknown => (typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined);

/**
 * Routes whose access also depends on their body, read once it is parsed: the stricter of the
 * table's and this one's.
 * - the generic command needs what the endpoint of the AP method it sends needs;
 * - a script sent inline (its code in the body) is admin; a stored one (`scriptId`) is run by
 *   the roles the script lists besides admin and root, which its route checks (upstream: inline
 *   scripts are root's, stored ones root's and their roles').
 */
const BY_BODY: Readonly<Record<string, (body: unknown) => Access>> = {
  'POST /device/:serialNumber/command': (body) => {
    const method = field(body, 'command');
    if (typeof method !== 'string') return 'user';
    // A script sent this way is inline: its payload goes to the AP as it is.
    if (method === 'script') return 'admin';
    return WRITE_ACCESS[`POST /device/:serialNumber/${ENDPOINT_OF[method] ?? method}`] === 'admin' ? 'admin' : 'user';
  },
  'POST /device/:serialNumber/script': (body) => (typeof field(body, 'scriptId') === 'string' && field(body, 'scriptId') !== '' ? 'user' : 'admin'),
};

/** `METHOD /path` of a route registered under `prefix`, the key of WRITE_ACCESS. */
export function routeKey(method: string, url: string, prefix = '/api/v1'): string {
  return `${method.toUpperCase()} ${url.startsWith(prefix) ? url.slice(prefix.length) : url}`;
}

/** Whether a route is a write, which WRITE_ACCESS must list. */
export function isWrite(method: string): boolean {
  return WRITE_METHODS.has(method.toUpperCase());
}

/**
 * The access a request needs: its route's (`body` undefined, before the body is read) or, for a
 * route whose body decides too (BY_BODY), the stricter of that and what its body needs.
 */
export function accessFor(key: string, body?: unknown): Access {
  const own = WRITE_ACCESS[key] ?? 'user';
  const byBody = body === undefined ? undefined : BY_BODY[key];
  return own === 'admin' || !byBody ? own : byBody(body);
}

/** Whether a route's access can depend on its body (checked once the body is read). */
export function dependsOnBody(key: string): boolean {
  return key in BY_BODY;
}

/** Throws FORBIDDEN (403) when `role` may not make a request that needs `access`. */
export function checkAccess(access: Access, role: string, key: string): void {
  if (access === 'admin' && !ADMIN_ROLES.has(role)) throw forbidden(key, 'admin');
}
