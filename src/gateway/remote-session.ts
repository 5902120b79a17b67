import { randomBytes, randomUUID } from 'node:crypto';
import { Type, type Static } from 'typebox';

/** spec "RemoteSession". */
export const RemoteSession = Type.Object({
  serialNumber: Type.String(),
  server: Type.String(),
  port: Type.Integer(),
  token: Type.String(),
  timeout: Type.Integer({ description: 'Seconds the AP keeps trying to reach the rtty server.' }),
  connectionId: Type.String({ description: '32 random hex digits naming this session.' }),
  started: Type.Integer(),
  commandUUID: Type.String({ description: 'The UUID of the rtty command sent to the AP.' }),
  viewport: Type.Integer({ description: 'Port of the rtty server web view.' }),
  password: Type.String(),
}, { $id: 'RemoteSession', title: 'RemoteSession' });
export type RemoteSession = Static<typeof RemoteSession>;

/**
 * Where rtty sessions point. Defaults are those of the OpenWiFi rtty server (rttys): it listens
 * for devices on 5912 and serves its web view on 5913; 60 s is the gateway's rtty wait.
 * Without a configured `token`, each session gets a fresh random one.
 */
export interface RttySettings {
  server: string;
  port: number;
  viewport: number;
  timeout: number;
  token?: string;
}

export const RTTY_DEFAULTS: RttySettings = { server: 'localhost', port: 5912, viewport: 5913, timeout: 60 };

/**
 * The session parameters of GET /device/{serial}/rtty. The rtty command itself goes through the
 * command service (actors/command-service.ts `rtty`) once the fleet is wired to the gateway.
 */
export function remoteSession(serial: string, startedSeconds: number, settings: Partial<RttySettings> = {}): RemoteSession {
  const s = { ...RTTY_DEFAULTS, ...settings };
  return {
    serialNumber: serial,
    server: s.server,
    port: s.port,
    token: s.token ?? randomBytes(16).toString('hex'),
    timeout: s.timeout,
    connectionId: randomBytes(16).toString('hex'),
    started: startedSeconds,
    commandUUID: randomUUID(),
    viewport: s.viewport,
    password: '',
  };
}
