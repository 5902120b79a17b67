import { fromCallback } from 'xstate';
import { isRefusedForGood, type DeviceLink, type LinkEvent } from '../../src/protocol/device-link.js';
import type { DownFrame } from '../../src/protocol/frame.js';
import type { VerifiedCertificate } from './device.types.js';
import { decodeFrame, type DecodedFrame } from './frame-decoder.js';
import { tryNotificationLane, type FastPath, type LaneDevice } from './notification-lane.js';

/** Events the link actor sends to the device machine. Frames arrive decoded (frame-decoder.ts). */
export type LinkMachineEvent =
  | { type: 'link.connected'; at: number; ipAddress?: string; certificate?: VerifiedCertificate }
  | { type: 'link.disconnected'; at: number; reason?: string }
  | { type: 'link.frame'; at: number; bytes: number; frame: DecodedFrame }
  | { type: 'link.sendFailed'; rpcId: number; reason: string; forGood?: boolean };

/** What the machine asks of the link actor. */
export type LinkActorEvent =
  | { type: 'send'; frame: DownFrame }
  | { type: 'close'; reason: string }
  | { type: 'attach'; link: DeviceLink };

function toMachineEvent(e: LinkEvent): LinkMachineEvent {
  switch (e.type) {
    case 'connected':
      return { type: 'link.connected', at: e.at, ipAddress: e.ipAddress, certificate: e.certificate };
    case 'disconnected':
      return { type: 'link.disconnected', at: e.at, reason: e.reason };
    case 'frame':
      return { type: 'link.frame', at: e.at, bytes: e.bytes, frame: decodeFrame(e.frame, e.stateText) };
    case 'malformed':
      return { type: 'link.frame', at: e.at, bytes: e.bytes, frame: { kind: 'invalid', reason: e.reason } };
  }
}

/**
 * The DeviceLink port as an invoked callback actor. It holds the current link and swaps it on
 * `attach` (an AP reconnecting through another edge, or a device known before its link exists),
 * so the machine never re-invokes and never learns which adapter it talks to.
 */
export const linkActor = fromCallback<LinkActorEvent, { link?: DeviceLink; device?: LaneDevice; fastPath?: FastPath }>(({ input, sendBack, receive }) => {
  let link = input.link;
  const { device, fastPath } = input;
  /**
   * True while a request of the machine runs here: a frame the link emits meanwhile (an AP
   * answering inside `send`) queues in the machine's mailbox behind events already waiting
   * there, instead of overtaking them through the lane.
   */
  let inRequest = false;
  const onLinkEvent = (e: LinkEvent): void => {
    const event = toMachineEvent(e);
    if (event.type === 'link.frame' && device && fastPath && !inRequest && tryNotificationLane(device, fastPath, event)) return;
    sendBack(event);
  };
  let unsubscribe = link?.subscribe(onLinkEvent);
  const handle = (event: LinkActorEvent): void => {
    if (event.type === 'attach') {
      unsubscribe?.();
      link = event.link;
      unsubscribe = link.subscribe(onLinkEvent);
    } else if (event.type === 'send') {
      const rpcId = event.frame.id;
      if (!link) {
        sendBack({ type: 'link.sendFailed', rpcId, reason: 'no link' });
        return;
      }
      link.send(event.frame).catch((err: unknown) => {
        sendBack({ type: 'link.sendFailed', rpcId, reason: err instanceof Error ? err.message : String(err), forGood: isRefusedForGood(err) });
      });
    } else {
      // A close that fails leaves nothing to do: the link reports its own disconnect.
      link?.close(event.reason).catch(() => undefined);
    }
  };
  receive((event) => {
    inRequest = true;
    try {
      handle(event);
    } finally {
      inRequest = false;
    }
  });
  return () => unsubscribe?.();
});
