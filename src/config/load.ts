import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { Value } from 'typebox/value';
import { SERVE_DEFAULTS, ServeConfigSchema, type ServeConfig } from './schema.js';
import { filterProblem, filtersOverlap } from '../protocol/nats-subjects.js';
import { ConfigError, parseRecordMaxBytes, parseSpeed } from './flags.js';

type Raw = Record<string, unknown>;

const NUMERIC = new Set(['gatewayPort', 'rrmPort', 'seed', 'bodyLimit', 'headersTimeout', 'requestTimeout', 'keepAliveTimeout', 'connectionTimeout', 'maxConnections', 'rrmWifiScanInterval', 'rrmCapabilitiesInterval', 'rrmCollectInterval', 'rrmConfigDebounce', 'rttyPort', 'rttyViewport', 'rttyTimeout', 'rttyMaxSessions', 'apMaxFramesPerS', 'apMaxBytesPerS', 'apOffenderSeconds', 'uploadPort', 'uploadMaxBytes', 'filesMaxAge', 'filesMaxBytes', 'warmUp']);
const BOOLEAN = new Set(['sim', 'keepTime', 'autoProvision', 'rtty']);
const LIST = new Set(['apiTokens', 'natsFilter']);

/** `gatewayPort` -> `--gateway-port`, for messages that name the flag the user typed. */
export function flagName(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** `AIRTWIN_GATEWAY_PORT` -> `gatewayPort`. */
function envKey(name: string): string {
  return name.slice('AIRTWIN_'.length).toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/**
 * The env form of a `--no-*` flag: `AIRTWIN_NO_SIM=true` is `sim: false`, as `--no-sim` is.
 * Undefined when `key` is no `no` + a boolean setting; a value that is not a boolean is left for
 * the schema to name.
 */
function negatedEnv(key: string, value: string): [string, unknown] | undefined {
  const m = /^no([A-Z].*)$/.exec(key);
  if (!m) return undefined;
  const positive = m[1]!.charAt(0).toLowerCase() + m[1]!.slice(1);
  if (!BOOLEAN.has(positive)) return undefined;
  const on = coerce(positive, value);
  return [positive, typeof on === 'boolean' ? !on : value];
}

/** The smallest static API token, not counting its `:role`. */
export const MIN_TOKEN_LENGTH = 8;

/**
 * Static tokens are `token` or `token:role` (the role after the last `:`); the token part must
 * be at least MIN_TOKEN_LENGTH characters and a role, when given, must not be empty.
 */
function checkApiTokens(tokens: readonly unknown[]): void {
  for (const entry of tokens) {
    if (typeof entry !== 'string') continue; // the schema names it
    const i = entry.lastIndexOf(':');
    const [token, role] = i > 0 ? [entry.slice(0, i), entry.slice(i + 1)] : [entry, undefined];
    const shown = token.length > 4 ? `${token.slice(0, 4)}…` : token;
    if (token.length < MIN_TOKEN_LENGTH) {
      throw new ConfigError(`--api-tokens: token ${JSON.stringify(shown)} has ${token.length} characters; a token needs at least ${MIN_TOKEN_LENGTH} (the :role after it does not count)`);
    }
    if (role === '') throw new ConfigError(`--api-tokens: token ${JSON.stringify(shown)} ends in ":" with no role (write token:role, or the token alone for role user)`);
  }
}

/** Turns strings from env vars or flags into the types the schema wants; leaves bad values for the schema to name. */
function coerce(key: string, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  if (NUMERIC.has(key)) return /^-?\d+$/.test(value) ? Number(value) : value;
  if (BOOLEAN.has(key)) return value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value;
  if (LIST.has(key)) return value.split(',').map((s) => s.trim()).filter(Boolean);
  return value;
}

function readConfigFile(path: string): Raw {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`--config: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  try {
    const parsed: unknown = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as Raw;
  } catch (e) {
    throw new ConfigError(`--config: ${path} is not a JSON or YAML object (${(e as Error).message})`);
  }
}

/** A filter JetStream would refuse or that could never match is a start-up error, not a silent worker. */
function checkNatsFilter(c: ServeConfig): void {
  const filter = c.natsFilter;
  if (!filter) return;
  if (!c.nats) throw new ConfigError('--nats-filter: needs --nats (it narrows the NATS consumer of this worker)');
  for (const f of filter) {
    const problem = filterProblem(f);
    if (problem) throw new ConfigError(`--nats-filter: ${JSON.stringify(f)} is invalid: ${problem}`);
  }
  for (const [i, a] of filter.entries()) {
    for (const b of filter.slice(i + 1)) {
      if (filtersOverlap(a, b)) throw new ConfigError(`--nats-filter: ${a} and ${b} overlap (JetStream refuses overlapping filter subjects)`);
    }
  }
}

/**
 * defaults < config file < AIRTWIN_* env < flags; validated once and frozen.
 * `flags` holds only what the user typed (undefined for untouched flags).
 */
export function loadServeConfig(input: { flags: Raw; env: Record<string, string | undefined>; configFile?: string }): Readonly<ServeConfig> {
  const known = new Set(Object.keys(ServeConfigSchema.properties));
  const layers: Raw[] = [];
  if (input.configFile) layers.push(readConfigFile(input.configFile));
  const fromEnv: Raw = {};
  for (const [name, value] of Object.entries(input.env)) {
    if (!name.startsWith('AIRTWIN_') || value === undefined || name === 'AIRTWIN_CONFIG') continue;
    const key = envKey(name);
    const negated = known.has(key) ? undefined : negatedEnv(key, value);
    if (negated) {
      fromEnv[negated[0]] = negated[1];
      continue;
    }
    if (!known.has(key)) throw new ConfigError(`${name}: unknown setting (no flag ${flagName(key)})`);
    fromEnv[key] = value;
  }
  layers.push(fromEnv, input.flags);

  const merged: Raw = { ...SERVE_DEFAULTS };
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      if (value === undefined) continue;
      if (!known.has(key)) throw new ConfigError(`${flagName(key)}: unknown setting`);
      merged[key] = coerce(key, value);
    }
  }
  // The same rules and messages as for `simulate`, `edge` and `replay`.
  merged.speed = parseSpeed(merged.speed);
  if (merged.recordMaxBytes !== undefined) merged.recordMaxBytes = parseRecordMaxBytes(merged.recordMaxBytes);
  if (Array.isArray(merged.apiTokens)) checkApiTokens(merged.apiTokens as unknown[]);
  const errors = [...Value.Errors(ServeConfigSchema, merged)];
  if (errors.length > 0) {
    const first = errors[0]!;
    const key = first.instancePath.split('/')[1] ?? '';
    throw new ConfigError(`${flagName(String(key))}: ${JSON.stringify(merged[String(key)])} is invalid (${first.message})`);
  }
  // Node refuses a header timeout longer than the request timeout.
  if ((merged.headersTimeout as number) > (merged.requestTimeout as number)) throw new ConfigError('--headers-timeout: must not be longer than --request-timeout');
  if (merged.jwtSecret && merged.jwtPublicKey) throw new ConfigError('--jwt-secret and --jwt-public-key: choose one JWT mode');
  if (Boolean(merged.tlsCert) !== Boolean(merged.tlsKey)) throw new ConfigError('--tls-cert and --tls-key go together');
  checkNatsFilter(merged as ServeConfig);
  // Settings of a mode that is off would be ignored without a word: say so instead.
  if (merged.keepTime === true && !merged.replay) throw new ConfigError('--keep-time: only with --replay');
  // Real APs live on the wall clock: frames of theirs stamped in a venue's past would mix two times.
  if ((merged.warmUp as number | undefined ?? 0) > 0 && (merged.replay || merged.sim === false || merged.nats)) {
    throw new ConfigError(`--warm-up: only with the simulated venue alone (not with ${merged.replay ? '--replay' : merged.nats ? '--nats' : '--no-sim'}); 0 turns it off`);
  }
  if (merged.recordMaxBytes !== undefined && !merged.record) throw new ConfigError('--record-max-bytes: only with --record');
  return Object.freeze(merged as ServeConfig);
}
