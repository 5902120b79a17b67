import { deflateParams } from '../../src/protocol/compress.js';
import type { DeviceLink, LinkEvent } from '../../src/protocol/device-link.js';
import type { CommandFrame, DownFrame, JsonObject, UpFrame } from '../../src/protocol/frame.js';
import type { StateText } from '../../src/protocol/json-source.js';

/**
 * A scripted DeviceLink for actor unit tests: the test plays the AP (connects, sends frames,
 * answers commands). Integration tests use the simulator's SimLink instead.
 */
export class FakeLink implements DeviceLink {
  readonly sent: DownFrame[] = [];
  closed: string[] = [];
  /** When set, `send` rejects with this message. */
  failSends: string | undefined;
  /** When set, the time the link gives its events (as an edge's `Airtwin-At`) instead of the clock's. */
  stampAt: number | undefined;
  private listeners = new Set<(e: LinkEvent) => void>();

  constructor(readonly serial: string, private readonly clockNow: () => number = () => 0) {}

  private now(): number {
    return this.stampAt ?? this.clockNow();
  }

  subscribe(listener: (event: LinkEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async send(frame: DownFrame): Promise<void> {
    if (this.failSends !== undefined) throw new Error(this.failSends);
    this.sent.push(frame);
  }

  async close(reason?: string): Promise<void> {
    this.closed.push(reason ?? '');
  }

  get listening(): number {
    return this.listeners.size;
  }

  private fire(e: LinkEvent): void {
    for (const l of [...this.listeners]) l(e);
  }

  up(ipAddress = '10.0.0.2'): void {
    this.fire({ type: 'connected', at: this.now(), ipAddress, certificate: 'VERIFIED' });
  }

  down(reason = 'socket closed'): void {
    this.fire({ type: 'disconnected', at: this.now(), reason });
  }

  /** `stateText`: the state's source text, as a link that parsed the frame from text gives it. */
  frame(frame: UpFrame | JsonObject, stateText?: StateText): void {
    this.fire({ type: 'frame', at: this.now(), frame: frame as UpFrame, bytes: JSON.stringify(frame).length, stateText });
  }

  malformed(reason = 'not JSON'): void {
    this.fire({ type: 'malformed', at: this.now(), reason, bytes: 10 });
  }

  notify(method: string, params: JsonObject, compress = false): void {
    const p = compress ? deflateParams({ serial: this.serial, ...params }) : { serial: this.serial, ...params };
    this.frame({ jsonrpc: '2.0', method, params: p });
  }

  connect(params: JsonObject = {}): void {
    this.notify('connect', { uuid: 1, firmware: 'fw-1', capabilities: { compatible: 'edgecore_eap101', platform: 'ap' }, ...params });
  }

  /** The last command the actor sent. */
  last(): CommandFrame {
    const f = this.sent[this.sent.length - 1];
    if (!f) throw new Error('no command was sent');
    return f;
  }

  reply(id: number, status: JsonObject = { error: 0, text: 'ok' }, extra: JsonObject = {}): void {
    this.frame({ jsonrpc: '2.0', id, result: { serial: this.serial, status, ...extra } });
  }
}

/** Let promise callbacks (admission, link sends) run; no wall-clock waiting. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
