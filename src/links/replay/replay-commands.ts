/**
 * Recorded commands played into a fleet: a `down` line is submitted to the device actor as a
 * command (replay-link.ts matches its recorded result), under a UUID derived from the
 * recording's head, the part and the line, so a replay is repeatable and a second replay of the
 * same recording into the same data dir updates the same records. A recorded upload goes to the
 * command its upload `uri` named, under the UUID that command runs with in this replay.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import type { DeviceEvent } from '../../../actors/device/device.events.js';
import { commandTimeoutMs } from '../../../actors/device/command-lifecycle.js';
import type { Command, CommandSubmission, RestartKind } from '../../../actors/device/device.types.js';
import { inflateParams, isCompressed } from '../../protocol/compress.js';
import type { CommandFrame, JsonObject } from '../../protocol/frame.js';
import type { RecordLine } from './read-recording.js';
import type { ReplayLink } from './replay-link.js';

const RESTARTS: Record<string, RestartKind> = { reboot: 'reboot', upgrade: 'upgrade', factory: 'factory' };

/**
 * Six hex digits that tell recordings apart: a digest of the first 64 KiB of the first file.
 * A replay of the same recording gets the same; another recording into the same data dir (the
 * next day's, another venue's) gets others, where (part, line, serial) alone gave its commands
 * the UUIDs of the first one's and replaced them.
 */
export function recordingDigest(files: readonly string[]): string {
  const head = Buffer.alloc(64 * 1024);
  let n = 0;
  try {
    const fd = openSync(files[0]!, 'r');
    try {
      n = readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Unreadable: the replay reports it when it reads the file.
  }
  return createHash('sha256').update(head.subarray(0, n)).digest('hex').slice(0, 6);
}

/**
 * A UUID-shaped id unique per (recording, part, line, serial), so replays are repeatable:
 * `TTTTTTLL-LLLL-4LLL-8PPP-SSSSSSSSSSSS` (digest, line, part, serial).
 */
export function replayCommandUuid(digest: string, part: number, line: number, serial: string): string {
  const l = line.toString(16).padStart(9, '0').slice(-9);
  return `${digest}${l.slice(0, 2)}-${l.slice(2, 6)}-4${l.slice(6)}-8${(part & 0xfff).toString(16).padStart(3, '0')}-${serial}`;
}

/**
 * The params the command was submitted with: a configure sent to an AP with `compress_cmd` is on
 * the wire compressed, and the actor compresses what it is given, so it gets the plain params.
 */
function plainParams(frame: CommandFrame): JsonObject {
  if (!isCompressed(frame.params)) return frame.params;
  const r = inflateParams(frame.params);
  return r.ok ? r.params : frame.params;
}

/** The command UUID a recorded command's upload `uri` names (its last path segment), for a trace or a deferred script. */
function recordedUploadUuid(frame: CommandFrame): string | undefined {
  const uri = frame.params.uri;
  if (typeof uri !== 'string' || !(frame.method === 'trace' || (frame.method === 'script' && frame.params.timeout === undefined))) return undefined;
  const last = uri.split('?')[0]!.split('/').filter(Boolean).pop();
  return last && /^[0-9a-f-]{36}$/i.test(last) ? last.toLowerCase() : undefined;
}

function submissionOf(serial: string, frame: CommandFrame, uuid: string, nowMs: number, uploads: boolean): CommandSubmission {
  const sec = Math.floor(nowMs / 1000);
  const params = plainParams(frame);
  const command: Command = {
    UUID: uuid, command: frame.method, details: JSON.stringify(params), serialNumber: serial, submitted: sec,
    executed: 0, completed: 0, when: 0, errorText: '', results: '{}', errorCode: 0, submittedBy: 'replay', status: 'pending',
    custom: 0, waitingForFile: uploads ? 1 : 0, attachFile: 0, attachSize: 0, attachType: '', executionTime: 0, lastTry: 0,
    deferred: frame.method === 'script' && uploads,
  };
  return {
    command, method: frame.method, params, timeoutMs: commandTimeoutMs(frame.method, params),
    queueable: false, awaitResult: frame.method !== 'telemetry', restart: RESTARTS[frame.method], runAt: 0, scripted: true,
  };
}

/** Where a line that did not play as recorded is reported (the replay's summary). */
export interface CommandOutcomes {
  /** A recorded command, result or upload that did not play as recorded: line and why. */
  unmatched(line: number, reason: string, file: string | undefined): void;
  /** A submitted command the actor did not run: counted as played when submitted, it was not. */
  notRun(line: number, reason: string, file: string | undefined): void;
}

type Upload = { serial: string; uuid: string; type: string; data: Buffer };

/** The recorded commands of one replay, from submission until the actor runs them or gives up on them. */
export class CommandReplay {
  /** Submitted recorded commands by UUID, until the actor sends them or gives up on them. */
  private readonly submitted = new Map<string, { link: ReplayLink; recordedId: number; line: number; file?: string }>();
  /** Recorded command UUID (its upload uri's) -> the UUID it runs under in this replay. */
  private readonly uploadsFor = new Map<string, string>();

  constructor(
    private readonly digest: string,
    private readonly submit: (serial: string, submission: CommandSubmission) => void,
    private readonly outcomes: CommandOutcomes,
    private readonly onUpload: ((u: Upload) => Promise<void>) | undefined,
  ) {}

  /** A fleet event about a command: one the actor did not run is reported, and its recorded result no longer expected. */
  onEvent(e: DeviceEvent): void {
    if (e.type !== 'command-updated' && e.type !== 'command-rejected') return;
    const sub = this.submitted.get(e.payload.command.UUID);
    if (!sub) return;
    const cmd = e.payload.command;
    const why = e.type === 'command-rejected' ? `${e.payload.code}: ${e.payload.reason}`
      : cmd.status !== 'pending' && cmd.executed === 0 ? `${cmd.status}: ${cmd.errorText}` : undefined;
    if (cmd.status === 'executed' || cmd.executed > 0) this.submitted.delete(cmd.UUID);
    if (why === undefined) return;
    this.submitted.delete(cmd.UUID);
    sub.link.cancelExpected(sub.recordedId);
    this.outcomes.notRun(sub.line, `recorded ${cmd.command} not run by the device actor (${why})`, sub.file);
  }

  /** Submits the recorded command of a `down` line (line `line` of part `part`) at `nowMs`. */
  down(rec: Extract<RecordLine, { kind: 'down' }>, link: ReplayLink, part: number, line: number, file: string | undefined, nowMs: number): void {
    const uuid = replayCommandUuid(this.digest, part, line, rec.serial);
    this.submitted.set(uuid, { link, recordedId: rec.frame.id, line, file });
    link.expectCommand(rec.frame);
    const recordedUuid = this.onUpload ? recordedUploadUuid(rec.frame) : undefined;
    if (recordedUuid) this.uploadsFor.set(recordedUuid, uuid);
    this.submit(rec.serial, submissionOf(rec.serial, rec.frame, uuid, nowMs, recordedUuid !== undefined));
  }

  /** Hands a recorded upload to the uploader, for the command that runs in place of the recorded one. */
  upload(rec: Extract<RecordLine, { kind: 'upload' }>, line: number, file: string | undefined): void {
    // Without an uploader (airtwin replay) the files have nowhere to go: passed over.
    if (!this.onUpload) return;
    const uuid = this.uploadsFor.get(rec.uuid);
    if (!uuid) {
      this.outcomes.unmatched(line, `upload for recorded command ${rec.uuid}, which this replay did not run with an upload uri: not delivered`, file);
      return;
    }
    this.uploadsFor.delete(rec.uuid);
    void this.onUpload({ serial: rec.serial, uuid, type: rec.type, data: rec.data }).catch((e: unknown) => {
      this.outcomes.unmatched(line, `upload for recorded command ${rec.uuid} refused: ${e instanceof Error ? e.message : String(e)}`, file);
    });
  }
}
