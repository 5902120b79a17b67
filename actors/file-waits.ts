import type { Clock } from '../src/protocol/clock.js';
import { isObject } from '../src/protocol/frame.js';
import { failedRecord } from './device/command-lifecycle.js';
import { isFinalStatus, type Command } from './device/device.types.js';

/** What an upload adds to its command's record. */
export interface Attachment {
  /** Epoch seconds the file arrived (upstream `attachFile`, the attach date). */
  attachFile: number;
  attachSize: number;
  attachType: string;
}

/** Why an upload is refused: no command waits for it (or not from that serial), it came already, or one is in progress. */
export type UploadRefusal = 'unexpected' | 'done' | 'busy';

interface Wait {
  serial: string;
  type: string;
  /** The latest record seen. */
  last: Command;
  /** The AP's successful reply arrived: the record is held `executed` until the file does. */
  replied: boolean;
  arrived?: Attachment;
  busy: boolean;
  timer?: unknown;
}

/** How long a file may take after the AP's reply (upstream registers the upload slot for 10-15 minutes). */
export const UPLOAD_WINDOW_MS = 10 * 60_000;
const REMEMBERED = 1024;

/** The upload type of a command that uploads (docs/upstream.md#rest-conventions): pcap for trace, txt for a shell script, tgz otherwise. */
export function uploadTypeOf(cmd: Pick<Command, 'command' | 'details'>): string {
  if (cmd.command === 'trace') return 'pcap';
  try {
    const d: unknown = JSON.parse(cmd.details);
    return isObject(d) && d.type === 'shell' ? 'txt' : 'tgz';
  } catch {
    return 'tgz';
  }
}

/**
 * Commands that wait for a file (trace, deferred script: `waitingForFile: 1`). The AP's reply no
 * longer ends such a command: its record stays `executed` (with the reply's results) until the
 * file arrives, then completes with `attachFile`, `attachSize` and `attachType`; a file that does
 * not come within the window after the reply fails it, saying so. A file may also arrive before
 * the reply (the AP's upload runs beside its answer); the command then completes with the reply.
 * The command service passes every record change through `adjust` and hands on what it returns.
 */
export class FileWaits {
  private readonly waits = new Map<string, Wait>();
  /** Commands whose file came, so a second upload is told so rather than "unexpected". */
  private readonly done = new Set<string>();

  constructor(private readonly opts: {
    clock: Clock;
    windowMs?: number;
    /** A record changed outside the device actor (file arrived, window ended). */
    changed: (command: Command) => void;
  }) {}

  adjust(cmd: Command, created: boolean): Command {
    if (created && cmd.waitingForFile === 1) {
      this.waits.set(cmd.UUID, { serial: cmd.serialNumber, type: cmd.attachType || uploadTypeOf(cmd), last: cmd, replied: false, busy: false });
      return cmd;
    }
    const w = this.waits.get(cmd.UUID);
    if (!w) return cmd;
    let out = cmd;
    if (cmd.status === 'completed') {
      if (w.arrived) {
        out = { ...cmd, waitingForFile: 0, ...w.arrived };
        this.end(cmd.UUID, w);
      } else {
        out = { ...cmd, status: 'executed' };
        w.replied = true;
        const windowMs = this.opts.windowMs ?? UPLOAD_WINDOW_MS;
        w.timer = this.opts.clock.setTimeout(() => this.expire(cmd.UUID, windowMs), windowMs);
      }
    } else if (isFinalStatus(cmd.status)) {
      // Failed or timed out: the wait ends; a file that came already stays attached.
      out = { ...cmd, waitingForFile: 0, ...w.arrived };
      this.end(cmd.UUID, w);
    } else if (w.arrived) out = { ...cmd, waitingForFile: 0, ...w.arrived };
    w.last = out;
    return out;
  }

  /** Whether command `uuid` takes a file from `serial` now; on yes it is claimed until `arrived` or `release`. */
  claim(uuid: string, serial: string | undefined): { type: string; serial: string } | UploadRefusal {
    const w = this.waits.get(uuid);
    if (!w || (serial !== undefined && serial !== w.serial)) return this.done.has(uuid) && !w ? 'done' : 'unexpected';
    if (w.arrived) return 'done';
    if (w.busy) return 'busy';
    w.busy = true;
    return { type: w.type, serial: w.serial };
  }

  /** A claimed upload failed: another may come. */
  release(uuid: string): void {
    const w = this.waits.get(uuid);
    if (w) w.busy = false;
  }

  /** The claimed file is stored. Completes the command if the AP has replied. */
  arrived(uuid: string, size: number): void {
    const w = this.waits.get(uuid);
    if (!w) return;
    w.busy = false;
    const attach: Attachment = { attachFile: Math.floor(this.opts.clock.now() / 1000), attachSize: size, attachType: w.type };
    this.remember(uuid);
    if (!w.replied) {
      w.arrived = attach;
      return;
    }
    this.end(uuid, w);
    this.opts.changed({ ...w.last, status: 'completed', completed: attach.attachFile, waitingForFile: 0, ...attach });
  }

  /** Commands waiting (tests, health). */
  get size(): number {
    return this.waits.size;
  }

  close(): void {
    for (const w of this.waits.values()) if (w.timer !== undefined) this.opts.clock.clearTimeout(w.timer);
    this.waits.clear();
  }

  private expire(uuid: string, windowMs: number): void {
    const w = this.waits.get(uuid);
    if (!w) return;
    if (w.busy) {
      // An upload is being received: give it the window once more rather than fail under it.
      w.timer = this.opts.clock.setTimeout(() => this.expire(uuid, windowMs), windowMs);
      return;
    }
    this.waits.delete(uuid);
    const why = `The device did not upload the file of this ${w.last.command} within ${Math.round(windowMs / 1000)} s of its reply.`;
    this.opts.changed({ ...failedRecord(w.last, this.opts.clock.now(), why), waitingForFile: 0 });
  }

  private end(uuid: string, w: Wait): void {
    if (w.timer !== undefined) this.opts.clock.clearTimeout(w.timer);
    this.waits.delete(uuid);
    if (w.arrived) this.remember(uuid);
  }

  private remember(uuid: string): void {
    this.done.add(uuid);
    if (this.done.size > REMEMBERED) this.done.delete(this.done.values().next().value as string);
  }
}
