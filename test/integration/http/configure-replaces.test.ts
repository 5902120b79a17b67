import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from '../../../src/store/records.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { until } from '../../helpers/until.js';

/**
 * A configure replaces a simulated AP's whole configuration, as on a real AP, and the device
 * record keeps what the AP then serves: the `lab` venue in `serve`, 20x faster than wall time.
 */

const A = 'a0b1c2000001';
let s: TestServer;

interface StateRadio { band: string[]; channel: number; tx_power: number }
interface State { radios: StateRadio[]; interfaces: { ssids: { band: string; associations: unknown[] }[] }[] }

const stored = async () => JSON.parse((await s.gw('GET', `/device/${A}`)).body.configuration as string) as { uuid: number; radios: { band: string; channel: number }[] };
const lastState = async () => {
  const values = (await s.gw('GET', `/device/${A}/statistics?lastOnly=true`)).body.values as { UUID: number; data: string }[] | undefined;
  return values?.[0] ? { uuid: values[0].UUID, state: JSON.parse(values[0].data) as State } : undefined;
};

beforeAll(async () => {
  s = await startTestServer({ sim: true, scenario: 'lab', speed: 20 });
  await until(`${A} online`, async () => (await s.gw('GET', `/device/${A}/status`)).body, (st) => st.connected === true);
}, 30_000);
afterAll(async () => s?.close());

describe('configure on a simulated AP', () => {
  it('naming only the 5 GHz radio turns 2.4 GHz off, and the stored configuration is what the AP serves', async () => {
    expect((await stored()).radios.map((r) => r.band)).toEqual(['5G', '2G']);
    const configuration = { radios: [{ band: '5G', channel: 149, 'channel-width': 80, 'tx-power': 18 }] };
    const a = await s.gw('POST', `/device/${A}/configure`, { body: { serialNumber: A, UUID: 1, configuration } });
    expect(a.status, a.text).toBe(200);
    const uuid = (a.body as Command).UUID;
    const done = await until(`configure ${uuid}`, async () => (await s.gw<Command>('GET', `/command/${uuid}`)).body, (c) => c.status === 'completed');
    const config = await stored();
    expect(config.radios).toEqual(configuration.radios);
    // The AP's next state: one radio, on the configured channel, its SSIDs on 5 GHz only.
    const after = await until('a state of the new configuration', lastState, (st) => st !== undefined && st.uuid === config.uuid && st.state.radios.length === 1);
    expect(after!.state.radios.map((r) => [r.band[0], r.channel, r.tx_power])).toEqual([['5G', 149, 18]]);
    expect(after!.state.interfaces[0]!.ssids.every((x) => x.band === '5G')).toBe(true);
    expect(JSON.parse(done.results).status.error).toBe(0);
  });
});
