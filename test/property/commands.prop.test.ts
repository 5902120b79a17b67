import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isFinalStatus, type CommandStatus, type RestartKind } from '../../actors/device/device.types.js';
import type { CommandMethod } from '../../src/protocol/frame.js';
import { SimulatedClock } from 'xstate';
import { CommandService } from '../../actors/command-service.js';
import { Fleet } from '../../actors/fleet.js';
import { startDevice, submission } from '../helpers/device-fixtures.js';
import { FakeLink, flush } from '../helpers/fake-link.js';
import { MemoryCommandStore } from '../helpers/memory-command-store.js';

/**
 * Model-based test of the device actor's command handling: random command
 * submissions interleaved with random AP behaviour (answers, errors, garbage, silence,
 * disconnects, reconnects) and clock jumps. Invariants hold after every step; at the end, once
 * time has passed, no command is left unfinished and the actor still takes and runs a command.
 */

const TIMEOUTS = { pendingTtlMs: 600_000, rebootMs: 120_000, upgradeMs: 120_000, factoryMs: 120_000, connectMs: 30_000 };
const METHODS: CommandMethod[] = ['configure', 'upgrade', 'factory', 'reboot', 'ping', 'leds', 'wifiscan', 'request', 'telemetry', 'script', 'event'];
const RESTART: Partial<Record<CommandMethod, RestartKind>> = { reboot: 'reboot', upgrade: 'upgrade', factory: 'factory' };

type Device = ReturnType<typeof startDevice>;
interface Real { d: Device; accepted: Set<string>; rejected: Set<string> }
type Model = Record<string, never>;

const RANK: Record<CommandStatus, number> = { pending: 0, executed: 1, completed: 2, failed: 2, timedout: 2, expired: 2 };

function checkInvariants(r: Real): void {
  const snap = r.d.actor.getSnapshot();
  expect(snap.status).toBe('active');
  const busy = JSON.stringify(snap.value) === JSON.stringify({ online: 'busy' });
  expect(snap.context.current !== undefined).toBe(busy);
  expect(snap.context.pending.length).toBeLessThanOrEqual(snap.context.maxPending);
  for (const uuid of r.accepted) {
    const statuses = r.d.commandUpdates(uuid).map((c) => c.status);
    expect(statuses[0]).toBe('pending');
    for (let i = 1; i < statuses.length; i++) {
      const [prev, cur] = [statuses[i - 1] as CommandStatus, statuses[i] as CommandStatus];
      expect(RANK[cur]).toBeGreaterThanOrEqual(RANK[prev]);
      if (isFinalStatus(prev)) expect(cur).toBe(prev); // only a request's results may change afterwards
    }
  }
}

class Submit implements fc.AsyncCommand<Model, Real> {
  constructor(readonly method: CommandMethod, readonly delayS: number) {}
  check = () => true;
  async run(_m: Model, r: Real): Promise<void> {
    const now = r.d.clock.now();
    const sub = submission(this.method, {
      restart: RESTART[this.method], runAt: this.delayS > 0 ? now + this.delayS * 1000 : 0, awaitResult: this.method !== 'telemetry',
    });
    r.d.actor.send({ type: 'command.submit', submission: sub });
    const uuid = sub.command.UUID;
    const created = r.d.of('command-updated').filter((e) => e.payload.command.UUID === uuid && e.payload.created).length;
    const rejected = r.d.of('command-rejected').filter((e) => e.payload.command.UUID === uuid).length;
    expect(created + rejected).toBe(1); // every submission gets exactly one answer, synchronously
    (created ? r.accepted : r.rejected).add(uuid);
    checkInvariants(r);
  }
  toString = () => `submit(${this.method}, +${this.delayS}s)`;
}

class Reply implements fc.AsyncCommand<Model, Real> {
  constructor(readonly error: number, readonly withStatus: boolean) {}
  check = () => true;
  async run(_m: Model, r: Real): Promise<void> {
    const current = r.d.actor.getSnapshot().context.current;
    const id = current?.rpcId ?? 1000 + this.error;
    if (this.withStatus) r.d.link.reply(id, { error: this.error, text: 'x' });
    else r.d.link.frame({ jsonrpc: '2.0', id, result: { serial: r.d.link.serial } });
    checkInvariants(r);
  }
  toString = () => `reply(error ${this.error}${this.withStatus ? '' : ', no status'})`;
}

class Garbage implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, r: Real): Promise<void> {
    r.d.link.frame({ jsonrpc: '2.0', method: 'state', params: 'x' });
    checkInvariants(r);
  }
  toString = () => 'garbage';
}

class Notify implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, r: Real): Promise<void> {
    r.d.link.notify('state', { uuid: 1, state: { unit: { uptime: 1 } } });
    checkInvariants(r);
  }
  toString = () => 'state';
}

class Connect implements fc.AsyncCommand<Model, Real> {
  constructor(readonly firmware: string) {}
  check = () => true;
  async run(_m: Model, r: Real): Promise<void> {
    r.d.link.up();
    r.d.link.connect({ firmware: this.firmware });
    await flush();
    checkInvariants(r);
  }
  toString = () => `connect(${this.firmware})`;
}

class Disconnect implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(_m: Model, r: Real): Promise<void> {
    r.d.link.down();
    checkInvariants(r);
  }
  toString = () => 'disconnect';
}

class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(_m: Model, r: Real): Promise<void> {
    r.d.clock.increment(this.ms);
    await flush();
    checkInvariants(r);
  }
  toString = () => `advance(${this.ms} ms)`;
}

const commands = [
  fc.tuple(fc.constantFrom(...METHODS), fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300 }))).map(([m, d]) => new Submit(m, d)),
  fc.tuple(fc.constantFrom(0, 0, 1, 2), fc.boolean()).map(([e, s]) => new Reply(e, s)),
  fc.constant(new Garbage()),
  fc.constant(new Notify()),
  fc.constantFrom('fw-1', 'fw-2').map((f) => new Connect(f)),
  fc.constant(new Disconnect()),
  fc.integer({ min: 1, max: 200_000 }).map((ms) => new Advance(ms)),
];

describe('device actor commands (model-based)', () => {
  it('never gets stuck and ends every accepted command in a final status', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 60 }), async (cmds) => {
        const real: Real = { d: startDevice({ timeouts: TIMEOUTS, maxPending: 8 }), accepted: new Set(), rejected: new Set() };
        await fc.asyncModelRun(() => ({ model: {}, real }), cmds);
        const { d } = real;

        // Let every timer run out with the AP away: nothing may stay pending or executed.
        d.link.down();
        d.clock.increment(TIMEOUTS.pendingTtlMs + 300_000 + 400_000);
        await flush();
        for (const uuid of real.accepted) {
          const last = d.lastRecord(uuid);
          expect(last && isFinalStatus(last.status), `${uuid} ended ${last?.status}`).toBe(true);
        }
        expect(d.value()).toBe('offline');

        // And the actor still works: it reconnects and runs a command to completion.
        d.link.up();
        d.link.connect();
        await flush();
        expect(d.value()).toEqual({ online: 'idle' });
        const ping = submission('ping');
        d.actor.send({ type: 'command.submit', submission: ping });
        d.link.reply(d.link.last().id);
        expect(d.lastRecord(ping.command.UUID)?.status).toBe('completed');
        d.actor.stop();
      }),
      { numRuns: 150 },
    );
  });
});

/** The same, one level up: calls through the command service, records through the store. */
interface Svc {
  clock: SimulatedClock;
  link: FakeLink;
  svc: CommandService;
  store: MemoryCommandStore;
  calls: { name: string; settled: boolean }[];
}

type Call = (svc: CommandService, serial: string, clock: SimulatedClock) => Promise<unknown>;
const CALLS: Record<string, Call> = {
  ping: (s, n) => s.ping(n),
  wifiscan: (s, n) => s.wifiscan(n, { verbose: true }),
  configure: (s, n) => s.configure(n, { configuration: { radios: [] } }),
  reboot: (s, n) => s.reboot(n),
  upgrade: (s, n) => s.upgrade(n, { uri: 'https://fw.example/x.bin' }),
  leds: (s, n) => s.leds(n, { pattern: 'blink', duration: 5 }),
  telemetry: (s, n) => s.telemetry(n, { interval: 5 }),
  request: (s, n) => s.request(n, { message: 'state' }),
  scheduledFactory: (s, n, c) => s.factory(n, { when: Math.floor(c.now() / 1000) + 120 }),
};

class ServiceCall implements fc.AsyncCommand<Model, Svc> {
  constructor(readonly name: string) {}
  check = () => true;
  async run(_m: Model, r: Svc): Promise<void> {
    const entry = { name: this.name, settled: false };
    r.calls.push(entry);
    CALLS[this.name]!(r.svc, r.link.serial, r.clock).then(() => { entry.settled = true; }, () => { entry.settled = true; });
    await flush();
  }
  toString = () => `call(${this.name})`;
}

class ApDoes implements fc.AsyncCommand<Model, Svc> {
  constructor(readonly what: 'answer' | 'error' | 'down' | 'up' | 'garbage') {}
  check = () => true;
  async run(_m: Model, r: Svc): Promise<void> {
    const last = r.link.sent.at(-1);
    if (this.what === 'answer' && last) r.link.reply(last.id, { error: 0 }, { deviceUTCTime: r.clock.now() });
    if (this.what === 'error' && last) r.link.reply(last.id, { error: 2, text: 'no' });
    if (this.what === 'down') r.link.down();
    if (this.what === 'up') { r.link.up(); r.link.connect(); }
    if (this.what === 'garbage') r.link.frame({ jsonrpc: '2.0', method: 'bogus', params: {} });
    await flush();
  }
  toString = () => `ap(${this.what})`;
}

class Wait implements fc.AsyncCommand<Model, Svc> {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(_m: Model, r: Svc): Promise<void> {
    r.clock.increment(this.ms);
    await flush();
  }
  toString = () => `wait(${this.ms} ms)`;
}

const serviceCommands = [
  fc.constantFrom(...Object.keys(CALLS)).map((n) => new ServiceCall(n)),
  fc.constantFrom('answer', 'answer', 'error', 'down', 'up', 'up', 'garbage').map((w) => new ApDoes(w as ApDoes['what'])),
  fc.integer({ min: 1, max: 150_000 }).map((ms) => new Wait(ms)),
];

describe('command service (model-based)', () => {
  it('settles every call and leaves every stored record final', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(serviceCommands, { maxCommands: 40 }), async (cmds) => {
        const clock = new SimulatedClock();
        clock.set(1_700_000_000_000);
        let n = 0;
        const newId = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
        const fleet = new Fleet({ clock, newId, timeouts: TIMEOUTS });
        const store = new MemoryCommandStore();
        const svc = new CommandService({ fleet, store, clock, newId });
        const link = new FakeLink('aabbccddeeff', () => clock.now());
        fleet.attach(link);
        const real: Svc = { clock, link, svc, store, calls: [] };
        await fc.asyncModelRun(() => ({ model: {}, real }), cmds);

        link.down();
        clock.increment(TIMEOUTS.pendingTtlMs + 700_000);
        await flush();
        await svc.flush();
        expect(real.calls.filter((c) => !c.settled).map((c) => c.name)).toEqual([]);
        for (const cmd of store.rows.values()) expect(isFinalStatus(cmd.status), `${cmd.command} ${cmd.status}`).toBe(true);
        expect(store.log[0]?.op ?? 'insert').toBe('insert');
        fleet.stopAll();
        svc.close();
      }),
      { numRuns: 100 },
    );
  });
});
