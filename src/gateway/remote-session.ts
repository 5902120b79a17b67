import { Type, type Static } from 'typebox';
import type { RttyServer } from '../../actors/command-params.js';

/** spec "RemoteSession": what GET /device/{serial}/rtty answers once the AP took the rtty command. */
export const RemoteSession = Type.Object({
  serialNumber: Type.String(),
  server: Type.String(),
  port: Type.Integer(),
  token: Type.String(),
  timeout: Type.Integer({ description: 'Seconds the AP keeps trying to reach the rtty server.' }),
  connectionId: Type.String({ description: '32 random hex digits naming this session (the `id` sent to the AP).' }),
  started: Type.Integer({ description: 'When the rtty command was sent to the AP (epoch s).' }),
  commandUUID: Type.String({ description: 'The UUID of the rtty command sent to the AP (GET /command/{uuid}).' }),
  viewport: Type.Integer({ description: 'Port of the rtty server web view.' }),
  password: Type.String({ description: 'Always empty, as upstream: the device password goes to the AP only.' }),
}, { $id: 'RemoteSession', title: 'RemoteSession' });
export type RemoteSession = Static<typeof RemoteSession>;

/**
 * Defaults of the OpenWiFi rtty server (rttys): it listens for devices on 5912 and serves its web
 * view on 5913; 60 s is the gateway's rtty wait. No token: each session gets a fresh random one.
 */
export const RTTY_DEFAULTS: Readonly<RttyServer> = { server: 'localhost', port: 5912, viewport: 5913, timeout: 60 };
