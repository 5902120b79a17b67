/** Hand-made AP frames for the NATS integration tests. */
export const connectFrame = (serial: string, uuid = 1) => ({
  jsonrpc: '2.0', method: 'connect',
  params: { serial, uuid, firmware: 'TIP-v2.9.0', capabilities: { compatible: 'edgecore_eap101', model: 'EAP101', platform: 'ap' } },
});

export const logFrame = (serial: string, log: string) => ({ jsonrpc: '2.0', method: 'log', params: { serial, log, severity: 6 } });

export const resultFrame = (serial: string, id: number, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0', id, result: { serial, status: { error: 0, text: 'ok', ...extra } },
});
