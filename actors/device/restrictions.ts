import { isObject, type JsonObject } from '../../src/protocol/frame.js';

/**
 * Restricted devices (docs/upstream.md#restricted-devices): an AP that
 * reports `capabilities.restrictions` (regulatory or vendor locks) refuses some commands unless
 * `developer` lifts them. Pure: the command's method and params against the restrictions.
 * - `rtty` on an AP restricted for rtty: refused (upstream 400 1151);
 * - `wifiscan` with `override_dfs: true` (the wifiscan endpoint's default) on an AP restricted for
 *   DFS: refused (1151);
 * - `upgrade` without a signature on an AP restricted for upgrades: refused (1146; upstream first
 *   tries to sign the firmware with a configured vendor key, and airtwin holds no vendor keys);
 * - `script` without a signature on any restricted AP: refused (1146).
 */

export interface Restrictions {
  dfs: boolean;
  ssh: boolean;
  rtty: boolean;
  tty: boolean;
  upgrade: boolean;
  commands: boolean;
  developer: boolean;
  country: string[];
}

export interface RestrictionRefusal {
  code: 'DEVICE_RESTRICTED' | 'SIGNATURE_REQUIRED';
  description: string;
}

/** The restrictions in a capabilities object, or undefined when it names none. */
export function restrictionsOf(capabilities: JsonObject | undefined): Restrictions | undefined {
  const r = capabilities && isObject(capabilities.restrictions) ? capabilities.restrictions : undefined;
  if (!r) return undefined;
  const flag = (k: string) => r[k] === true;
  return {
    dfs: flag('dfs'), ssh: flag('ssh'), rtty: flag('rtty'), tty: flag('tty'), upgrade: flag('upgrade'), commands: flag('commands'),
    developer: flag('developer'),
    country: Array.isArray(r.country) ? r.country.filter((c): c is string => typeof c === 'string') : [],
  };
}

/** Any lock set (upstream's "restrictions enabled"); `developer` alone is no lock. */
export function isRestricted(r: Restrictions): boolean {
  return r.dfs || r.ssh || r.rtty || r.tty || r.upgrade || r.commands || r.country.length > 0;
}

const EVERY_LOCK: Restrictions = { dfs: true, ssh: true, rtty: true, tty: true, upgrade: true, commands: true, developer: false, country: ['*'] };

/** Whether any AP's restrictions could refuse this command (else its capabilities need not be looked up). */
export function restrictable(method: string, params: JsonObject): boolean {
  return restrictionRefusal(method, params, EVERY_LOCK) !== undefined;
}

/** Why the AP's restrictions refuse this command, or undefined when they allow it. */
export function restrictionRefusal(method: string, params: JsonObject, r: Restrictions | undefined): RestrictionRefusal | undefined {
  if (!r || r.developer) return undefined;
  const signed = typeof params.signature === 'string' && params.signature !== '';
  if (method === 'rtty' && r.rtty) {
    return { code: 'DEVICE_RESTRICTED', description: 'The device is restricted for remote sessions (capabilities.restrictions.rtty).' };
  }
  // The wifiscan endpoint always sends override_dfs (default true); a generic /command payload
  // without it leaves the AP's own default, which does not override DFS.
  if (method === 'wifiscan' && r.dfs && params.override_dfs === true) {
    return { code: 'DEVICE_RESTRICTED', description: 'The device is restricted for DFS: scan with override_dfs false (capabilities.restrictions.dfs).' };
  }
  if (method === 'upgrade' && r.upgrade && !signed) {
    return { code: 'SIGNATURE_REQUIRED', description: 'The device only takes signed firmware: give the image\'s signature (FWsignature or signature).' };
  }
  if (method === 'script' && isRestricted(r) && !signed) {
    return { code: 'SIGNATURE_REQUIRED', description: 'The device is restricted: a script needs its signature.' };
  }
  return undefined;
}
