import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from '../../src/store/records.js';
import { startTestServer, type Answer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

/**
 * Random command sequences over HTTP against the `lab` venue (20x speed): bursts of commands sent
 * at once to the same or other APs (so some meet a busy or rebooting device), malformed bodies,
 * reboots. Properties: every answer is one the command policy allows; every accepted command
 * reaches a final status within a bounded simulated time; afterwards every AP is back online
 * and answers a ping (no actor stuck busy). Few runs: each one is seconds of real HTTP.
 */

const APS = ['a0b1c2000001', 'a0b1c2000002', 'a0b1c2000003'];
const FINAL = ['completed', 'failed', 'timedout', 'expired'];
/** Longest command timeout (configure/wifiscan/leds 120 s) + a reboot in between (boot <= 90 s) + margin. */
const BOUND_MS = 300_000;
const SEED = 20_261_121;

interface Step {
  serial: string;
  command: string;
  body: Record<string, unknown>;
  /** Sent together with the step before it (no waiting for its answer). */
  withPrevious: boolean;
  bad: boolean;
}

const good = fc.oneof(
  fc.constant({ command: 'ping', body: {} }),
  fc.constantFrom('on', 'off', 'blink').map((pattern) => ({ command: 'leds', body: { pattern, duration: 2 } })),
  fc.constantFrom(['2'], ['5'], ['2', '5']).map((bands) => ({ command: 'wifiscan', body: { selector: { bands } } })),
  fc.constantFrom('state', 'healthcheck').map((message) => ({ command: 'request', body: { message } })),
  fc.constant({ command: 'eventqueue', body: { types: ['dhcp'] } }),
  fc.integer({ min: 8, max: 18 }).map((tx) => ({ command: 'configure', body: { configuration: { radios: [{ band: '2G', 'tx-power': tx }] } } })),
  fc.constantFrom('shell', 'uci').map((type) => ({ command: 'script', body: { type, script: 'ZGF0ZQ==', timeout: 5 } })),
  fc.integer({ min: 0, max: 5 }).map((interval) => ({ command: 'telemetry', body: { interval, lifetime: 30 } })),
  fc.constant({ command: 'command', body: { command: 'ping' } }),
  fc.constant({ command: 'trace', body: { network: 'lan', duration: 2 } }),
);
const bad = fc.constantFrom(
  { command: 'leds', body: { pattern: 'disco' } },
  { command: 'configure', body: { configuration: 'nope' } },
  { command: 'telemetry', body: { interval: 500 } },
  { command: 'upgrade', body: { uri: 'file:///etc/passwd' } },
);

const step: fc.Arbitrary<Step> = fc.record({
  serial: fc.constantFrom(...APS),
  // Reboots are rare: each keeps an AP away for 45-90 s of venue time.
  kind: fc.oneof({ weight: 12, arbitrary: good }, { weight: 2, arbitrary: bad.map((b) => ({ ...b, bad: true })) }, { weight: 1, arbitrary: fc.constant({ command: 'reboot', body: {} }) }),
  withPrevious: fc.boolean(),
}).map(({ serial, kind, withPrevious }) => ({ serial, command: kind.command, body: kind.body, withPrevious, bad: 'bad' in kind }));

let s: TestServer;

const online = (serial: string) => until(`${serial} online`, async () => (await s.gw('GET', `/device/${serial}/status`)).body.connected, (c) => c === true, 20_000);

/** What the command policy allows as an answer to this step. */
function checkAnswer(st: Step, a: Answer): void {
  const what = `${st.command} ${JSON.stringify(st.body)} -> ${a.status} ${a.text.slice(0, 200)}`;
  if (st.bad) {
    expect(a.status, what).toBe(400);
    return;
  }
  // Only ping answers 504 (the AP did not answer); only non-queueable commands meet 409.
  const allowed = st.command === 'ping' ? [200, 409, 504] : st.command === 'configure' ? [200] : [200, 409];
  expect(allowed, what).toContain(a.status);
  if (a.status === 409) expect(a.body.ErrorDescription, what).toMatch(/not connected|already running/);
  if (a.status === 200 && st.command === 'ping') expect(a.body.latency, what).toEqual(expect.any(Number));
  if (a.status === 200 && st.command !== 'ping') expect(a.body.UUID, what).toEqual(expect.any(String));
}

beforeAll(async () => {
  s = await startTestServer({ sim: true, scenario: 'lab', speed: 20 });
  await Promise.all(APS.map(online));
}, 30_000);
afterAll(async () => s?.close());

describe('random command sequences over HTTP (property)', () => {
  it('every answer follows the policy, every accepted command ends final in bounded simulated time, no AP stays stuck', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 10 }), async (steps) => {
        // Bursts: a step sent with the previous one goes out before either is answered.
        const bursts: Step[][] = [];
        for (const st of steps) {
          if (st.withPrevious && bursts.length > 0) bursts.at(-1)!.push(st);
          else bursts.push([st]);
        }
        const accepted: { uuid: string; at: number }[] = [];
        for (const burst of bursts) {
          const at = s.running.clock.now();
          const answers = await Promise.all(burst.map((st) => s.gw('POST', `/device/${st.serial}/${st.command}`, { body: st.body })));
          burst.forEach((st, i) => {
            const a = answers[i]!;
            checkAnswer(st, a);
            if (a.status === 200 && st.command !== 'ping') accepted.push({ uuid: a.body.UUID as string, at });
          });
        }
        for (const { uuid, at } of accepted) {
          const c = await until(`command ${uuid} final`, async () => (await s.gw<Command>('GET', `/command/${uuid}`)).body, (x) => FINAL.includes(x.status), 30_000);
          expect(s.running.clock.now() - at, `${c.command} ${uuid} took too long`).toBeLessThanOrEqual(BOUND_MS);
          if (c.executed > 0) expect(c.completed).toBeGreaterThanOrEqual(c.executed);
          expect(c.executed === 0 || c.executed >= c.submitted).toBe(true);
        }
        // Nothing stuck: every AP is (back) online and runs a command again.
        for (const serial of APS) {
          await online(serial);
          const ping = await until(`${serial} answers a ping`, () => s.gw('POST', `/device/${serial}/ping`), (a) => a.status !== 409, 20_000);
          expect(ping.status, ping.text).toBe(200);
        }
      }),
      { numRuns: 6, seed: SEED, endOnFailure: true },
    );
  }, 50_000);
});
