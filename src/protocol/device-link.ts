import type { DownFrame, UpFrame } from './frame.js';
import type { StateText } from './json-source.js';

/**
 * What happens on a link, in order. `at` is on the process clock (epoch ms).
 * A malformed frame is reported, never thrown: the actor counts it and may drop the AP.
 * A frame's `stateText`, when the link parsed a `state` frame from text: the source text of its
 * `params.state` (json-source.ts), which ingest stores as it is instead of serialising the state.
 */
export type LinkEvent =
  | { type: 'connected'; at: number; ipAddress?: string; certificate?: 'NO_CERTIFICATE' | 'VALID_CERTIFICATE' | 'MISMATCH_SERIAL' | 'VERIFIED' }
  | { type: 'frame'; at: number; frame: UpFrame; bytes: number; stateText?: StateText }
  | { type: 'malformed'; at: number; reason: string; bytes: number }
  | { type: 'disconnected'; at: number; reason?: string };

/**
 * The DeviceLink port: all a device actor knows about its AP. Adapters: simulator/link.ts
 * (seeded radio world) and one folder of src/links each; src/links/record wraps any of them.
 * The actor never asks which one it has.
 */
export interface DeviceLink {
  readonly serial: string;
  /**
   * Set when the link takes no new command, saying why; it completes "Device X is ...". Such a
   * link carries only the commands its own source submits (`CommandSubmission.scripted`): the
   * fleet refuses any other at submission as for an AP offline (409 DEVICE_OFFLINE), leaving no
   * record, and RRM sends such an AP nothing (Fleet.commandable).
   */
  readonly refusesNewCommands?: string;
  /** Listen to link events; returns the function that stops listening. */
  subscribe(listener: (event: LinkEvent) => void): () => void;
  /**
   * Deliver a command to the AP. Rejects with a coded error when the AP cannot be reached; an
   * error marked with `refusedForGood` means no later attempt can succeed either.
   */
  send(frame: DownFrame): Promise<void>;
  /** Drop the connection (blacklist, protocol abuse, shutdown). */
  close(reason?: string): Promise<void>;
}

const FOR_GOOD = Symbol('airtwin.refusedForGood');

/**
 * Marks a `send` rejection as final: this link will never carry the command (one that takes no
 * new commands, `refusesNewCommands`). The actor then fails a queueable
 * command at once instead of keeping it pending and retrying it until it expires.
 */
export function refusedForGood<E extends Error>(err: E): E {
  Object.defineProperty(err, FOR_GOOD, { value: true });
  return err;
}

export function isRefusedForGood(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[FOR_GOOD] === true;
}
