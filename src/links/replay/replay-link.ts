/**
 * ReplayLink: the DeviceLink of one recorded serial (docs/ARCHITECTURE.md). The replayer pushes the
 * recorded lines into it; the device actor sees an AP that connects, reports and answers
 * commands exactly when the recording says it did.
 *
 * Commands. A recorded `down` frame is not re-sent anywhere. The replayer first tells the link
 * to expect it (`expectCommand`), then submits the same command to the device actor, so the actor
 * owns a real command record. When the actor hands that command to `send()`, the link notes the
 * actor's JSON-RPC id for the recorded one; the recorded result (`up` frame with that recorded
 * id) is then delivered under the actor's id, so it completes that command exactly as the live
 * result did: a wifiscan result becomes scan entries, a configure result the active config.
 *
 * A NEW command (one the recording does not hold: an API call during `serve --replay`) is
 * refused at once with DEVICE_OFFLINE: a recording can only say what the AP answered back then,
 * and failing fast tells the caller so, where waiting would only end in a timeout. The actor
 * records that command as failed ("The command could not be sent: ...").
 *
 * Connection. `connect` / `disconnect` events drive `connected` / `disconnected`. An `up` frame
 * of a serial whose recording starts mid-session (no connect seen yet) opens the link first;
 * frames recorded while the AP was disconnected, or after the actor closed the link (it dropped
 * the AP), are not delivered and are counted in `dropped`, until the next recorded connect.
 * After the last line the link stays as the recording left it.
 */
import { airtwinError } from '../../errors.js';
import type { Clock } from '../../protocol/clock.js';
import { refusedForGood, type DeviceLink, type LinkEvent } from '../../protocol/device-link.js';
import type { CommandFrame, DownFrame, JsonObject, UpFrame } from '../../protocol/frame.js';
import type { StateText } from '../../protocol/json-source.js';

type LinkState = 'new' | 'up' | 'down';

/** Why a replayed AP takes no new command: it carries only the ones its recording holds. */
export const REPLAYED = 'replayed from a recording: it plays back what the AP did';

export class ReplayLink implements DeviceLink {
  readonly refusesNewCommands = REPLAYED;
  private readonly listeners: ((e: LinkEvent) => void)[] = [];
  private state: LinkState = 'new';
  /** Recorded commands handed to the actor, in the order it will send them (its queue is FIFO). */
  private expected: { recordedId: number; method: string }[] = [];
  /** Recorded JSON-RPC id -> the id the actor used for the same command. */
  private readonly ids = new Map<number, number>();
  /** Up frames not delivered because the AP was disconnected (recorded or dropped by the actor). */
  dropped = 0;
  /** Commands the actor sent that the recording does not hold (refused). */
  refused = 0;

  constructor(readonly serial: string, private readonly clock: Clock) {}

  /** Whether the replayed AP is connected right now. */
  get connected(): boolean {
    return this.state === 'up';
  }

  subscribe(listener: (event: LinkEvent) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  send(frame: DownFrame): Promise<void> {
    if (this.state !== 'up') {
      return Promise.reject(airtwinError('DEVICE_OFFLINE', frame.method, `Replayed device ${this.serial} is not connected at this point of the recording.`));
    }
    const head = this.expected[0];
    if (head && head.method === frame.method) {
      this.expected.shift();
      this.ids.set(head.recordedId, frame.id);
      return Promise.resolve();
    }
    this.refused++;
    return Promise.reject(refusedForGood(airtwinError('DEVICE_OFFLINE', frame.method,
      `Device ${this.serial} is ${REPLAYED} and cannot run a new '${frame.method}'.`)));
  }

  /** The actor dropped the AP (blacklist, protocol errors, shutdown): it is cut off until the next recorded connect. */
  close(reason = 'closed'): Promise<void> {
    if (this.state === 'up') this.disconnect(reason);
    else this.state = 'down';
    return Promise.resolve();
  }

  // --- driven by the replayer -----------------------------------------------------------------

  /** A recorded connect event; `at` when it happened, if before now (a line recorded late). */
  connect(at = this.clock.now()): void {
    this.state = 'up';
    this.dispatch({ type: 'connected', at });
  }

  /** A recorded disconnect event. Commands still expected will not be sent on this session. */
  disconnect(reason = 'recorded disconnect', at = this.clock.now()): void {
    const wasUp = this.state === 'up';
    this.state = 'down';
    if (wasUp) this.dispatch({ type: 'disconnected', at, reason });
  }

  /**
   * A recorded up frame, delivered now; `at` when the AP sent it, if before now (a line recorded
   * late). 'dropped' when the AP was disconnected; 'unmatched' for a result whose recorded
   * command the actor did not send in this replay (none recorded before it, or not run), which
   * is not delivered: under its recorded id it could complete another command of the actor's
   * that happens to have that id. `stateText`: the state's source text from the line (LinkEvent).
   */
  deliver(frame: JsonObject, bytes: number, at = this.clock.now(), stateText?: StateText): 'delivered' | 'dropped' | 'unmatched' {
    if (this.state === 'new') this.connect(at);
    if (this.state === 'down') {
      this.dropped++;
      return 'dropped';
    }
    let out = frame;
    if (typeof frame.id === 'number' && frame.result !== undefined) {
      const mine = this.ids.get(frame.id);
      if (mine !== undefined) {
        this.ids.delete(frame.id);
        out = { ...frame, id: mine };
      } else if (frame.id > 1) {
        // Ids 0 and 1 are one-way (the actor ignores replies to them): those pass as recorded.
        return 'unmatched';
      }
    }
    this.dispatch({ type: 'frame', at, frame: out as unknown as UpFrame, bytes, stateText });
    return 'delivered';
  }

  /** The replayer is about to submit this recorded command to the actor. */
  expectCommand(frame: CommandFrame): void {
    this.expected.push({ recordedId: frame.id, method: frame.method });
  }

  /** The actor will not send that recorded command (rejected, expired): forget it. */
  cancelExpected(recordedId: number): void {
    const i = this.expected.findIndex((e) => e.recordedId === recordedId);
    if (i >= 0) this.expected.splice(i, 1);
  }

  /** Recorded commands handed to the actor and not sent yet. */
  get waiting(): number {
    return this.expected.length;
  }

  private dispatch(e: LinkEvent): void {
    // One listener (the device actor's link actor) nearly always: no copy of the list per frame.
    if (this.listeners.length === 1) this.listeners[0]!(e);
    else for (const l of [...this.listeners]) l(e);
  }
}
