import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jwtVerify, importSPKI, errors as joseErrors, type CryptoKey as JoseKey } from 'jose';
import { airtwinError, tokenExpired, unauthorized } from '../errors.js';

/** Who made a request. `role` decides which writes it may make (src/server/roles.ts). */
export interface Principal {
  subject: string;
  role: string;
  /** Epoch ms after which the principal must be re-validated. */
  expiresAt?: number;
}

export interface AuthSettings {
  apiTokens: string[];
  jwtSecret?: string;
  /** Path to a PEM RS256 public key. */
  jwtPublicKey?: string;
  /** OpenWiFi-style security service base URL (validates tokens at /api/v1/validateToken). */
  securityUrl?: string;
  dataDir: string;
}

export interface Authenticator {
  /** Resolves the principal or throws a coded 401 (or 503 when the security service is down). */
  verify(authorization: string | undefined): Promise<Principal>;
  /** Modes in force, for the start banner. */
  readonly modes: string[];
  /** The token created in the data dir when no auth was configured (printed at start). */
  readonly generatedToken?: string;
}

export const TOKEN_FILE = 'api-token';

function equalStrings(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** A token file is created once per data dir, so restarts keep the same token. */
function ensureTokenFile(dataDir: string): string {
  const path = join(dataDir, TOKEN_FILE);
  if (existsSync(path)) {
    const existing = readFileSync(path, 'utf8').trim();
    if (existing.length >= 8) return existing;
  }
  const token = randomBytes(24).toString('base64url');
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  return token;
}

interface SecurityServiceAnswer {
  tokenInfo?: { created?: number; expires_in?: number };
  userInfo?: { email?: string; userRole?: string; id?: string };
}

export type Fetch = (url: string, init?: { signal?: AbortSignal }) => Promise<{ status: number; json(): Promise<unknown> }>;

type Verify = (token: string) => Promise<Principal>;

export async function createAuthenticator(settings: AuthSettings, deps: { now: () => number; fetch?: Fetch }): Promise<Authenticator> {
  const { statics, generatedToken } = staticTokens(settings);
  const jwt = await jwtVerifier(settings, deps.now);
  const viaSecurityService = settings.securityUrl
    ? securityServiceVerifier(settings.securityUrl, deps.fetch ?? (globalThis.fetch as unknown as Fetch), deps.now) : undefined;
  const modes: string[] = [];
  if (statics.size > 0) modes.push('static');
  if (jwt) modes.push(`jwt-${jwt.alg}`);
  if (viaSecurityService) modes.push('security-service');
  return {
    modes,
    generatedToken,
    async verify(authorization) {
      if (!authorization) throw unauthorized('Missing Authorization header; send "Authorization: Bearer <token>".');
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!match) throw unauthorized('Malformed Authorization header; expected "Bearer <token>".');
      const token = match[1]!;
      for (const [known, role] of statics) if (equalStrings(known, token)) return { subject: `token:${known.slice(0, 4)}…`, role };
      const looksJwt = token.split('.').length === 3;
      if (jwt && looksJwt) return jwt.verify(token);
      if (viaSecurityService) return viaSecurityService(token);
      if (jwt) return jwt.verify(token);
      throw unauthorized('Invalid token.');
    },
  };
}

/** Static tokens (`token` or `token:role`, role user by default); with no auth configured at all, the data dir's admin token. */
function staticTokens(settings: AuthSettings): { statics: Map<string, string>; generatedToken?: string } {
  const statics = new Map<string, string>();
  for (const entry of settings.apiTokens) {
    const i = entry.lastIndexOf(':');
    const [token, role] = i > 0 ? [entry.slice(0, i), entry.slice(i + 1)] : [entry, 'user'];
    statics.set(token, role);
  }
  if (statics.size === 0 && !settings.jwtSecret && !settings.jwtPublicKey && !settings.securityUrl) {
    // Nothing configured: the newcomer's token, admin so every endpoint can be tried.
    const generatedToken = ensureTokenFile(settings.dataDir);
    statics.set(generatedToken, 'admin');
    return { statics, generatedToken };
  }
  return { statics };
}

/** JWTs signed with the shared secret (HS256) or the public key's pair (RS256), when either is set. */
async function jwtVerifier(settings: AuthSettings, now: () => number): Promise<{ alg: 'HS256' | 'RS256'; verify: Verify } | undefined> {
  let key: Uint8Array | JoseKey;
  let alg: 'HS256' | 'RS256';
  if (settings.jwtSecret) {
    key = new TextEncoder().encode(settings.jwtSecret);
    alg = 'HS256';
  } else if (settings.jwtPublicKey) {
    key = await importSPKI(readFileSync(settings.jwtPublicKey, 'utf8'), 'RS256');
    alg = 'RS256';
  } else {
    return undefined;
  }
  const verify = async (token: string): Promise<Principal> => {
    try {
      // A JWT without `exp` would be good for ever (a leaked one could never be retired): refused.
      const { payload } = await jwtVerify(token, key, { algorithms: [alg], currentDate: new Date(now()), requiredClaims: ['exp'] });
      const role = typeof payload.role === 'string' ? payload.role : typeof payload.userRole === 'string' ? payload.userRole : 'user';
      const subject = typeof payload.sub === 'string' ? payload.sub : typeof payload.email === 'string' ? payload.email : 'jwt';
      return { subject, role };
    } catch (e) {
      if (e instanceof joseErrors.JWTExpired) throw tokenExpired();
      if (e instanceof joseErrors.JWTClaimValidationFailed && e.claim === 'exp') {
        throw unauthorized('The token has no expiry (exp claim); this service takes only tokens that expire.');
      }
      throw unauthorized('The token is not a valid JWT for this service.');
    }
  };
  return { alg, verify };
}

/** Tokens checked by an OpenWiFi security service (/api/v1/validateToken), answers cached per token. */
function securityServiceVerifier(securityUrl: string, fetcher: Fetch, now: () => number): Verify {
  const cache = new Map<string, Principal>();
  return async (token) => {
    const cached = cache.get(token);
    if (cached && (cached.expiresAt ?? 0) > now()) return cached;
    cache.delete(token);
    const url = `${securityUrl.replace(/\/$/, '')}/api/v1/validateToken?token=${encodeURIComponent(token)}`;
    let answer: { status: number; json(): Promise<unknown> };
    try {
      answer = await fetcher(url, { signal: AbortSignal.timeout(10_000) });
    } catch (e) {
      throw airtwinError('SECURITY_UNREACHABLE', 'Authorization', 'The security service cannot be reached; try again later.', e);
    }
    if (answer.status !== 200) throw unauthorized('The token was rejected by the security service.');
    const body = (await answer.json().catch(() => ({}))) as SecurityServiceAnswer;
    if (!body.tokenInfo || !body.userInfo) throw unauthorized('The security service gave no token or user information.');
    const created = body.tokenInfo.created ?? Math.floor(now() / 1000);
    const expiresAt = (created + (body.tokenInfo.expires_in ?? 0)) * 1000;
    if (expiresAt <= now()) throw tokenExpired();
    // Cache until the token's own expiry, and never longer than 20 minutes (upstream's cache life).
    const principal: Principal = {
      subject: body.userInfo.email ?? body.userInfo.id ?? 'unknown',
      role: body.userInfo.userRole ?? 'user',
      expiresAt: Math.min(expiresAt, now() + 20 * 60_000),
    };
    if (cache.size > 4096) cache.delete(cache.keys().next().value!);
    cache.set(token, principal);
    return principal;
  };
}
