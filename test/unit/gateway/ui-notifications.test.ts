import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { FleetEvent } from '../../../actors/fleet.js';
import { UiNotifications, type UiClient } from '../../../src/gateway/ui-notifications.js';
import { VirtualClock } from '../../../simulator/clock.js';

const T0 = 1_700_000_000_000;
const SERIALS = ['a0b1c2000001', 'a0b1c2000002', 'a0b1c2100001'];

function setup() {
  const clock = new VirtualClock(T0);
  const events$ = new Subject<FleetEvent>();
  const figures = { numberOfDevices: 2, averageConnectedTime: 61, numberOfConnectingDevices: 0, rx: 10, tx: 20 };
  const ui = new UiNotifications({ clock, events$, serials: () => SERIALS, connectionFigures: () => figures });
  const client = () => {
    const sent: unknown[] = [];
    const closed: [number, string][] = [];
    const c: UiClient & { bufferedAmount: number } = {
      send: (t) => sent.push(JSON.parse(t)), close: (code, reason) => closed.push([code, reason]), bufferedAmount: 0,
    };
    return { c, sent, closed };
  };
  const event = (type: 'connected' | 'disconnected' | 'state' | 'log', serial: string) =>
    events$.next({ type, serial, at: clock.now(), payload: {} } as unknown as FleetEvent);
  return { clock, ui, client, event };
}

describe('UiNotifications', () => {
  it('welcomes a client with the notification types, then sends 4000, 5000 and 6000 from the fleet with upstream ids', () => {
    const { ui, client, event } = setup();
    const a = client();
    ui.join(a.c);
    expect(a.sent[0]).toMatchObject({ success: expect.stringMatching(/^Welcome/), notificationTypes: expect.arrayContaining([{ id: 4000, helper: 'device_connection' }]) });
    event('connected', SERIALS[0]!);
    event('state', SERIALS[0]!);
    event('log', SERIALS[0]!);
    event('disconnected', SERIALS[1]!);
    expect(a.sent.slice(1)).toEqual([
      { notification: { notification_id: 1, type_id: 4000, content: { serialNumber: SERIALS[0] } } },
      { notification: { notification_id: 2, type_id: 6000, content: { serialNumber: SERIALS[0] } } },
      { notification: { notification_id: 3, type_id: 5000, content: { serialNumber: SERIALS[1] } } },
    ]);
  });

  it('sends the 1000 connection statistics every 30 s while a client listens, on the injected clock', () => {
    const { ui, client, clock } = setup();
    const a = client();
    const member = ui.join(a.c);
    clock.increment(29_999);
    expect(a.sent).toHaveLength(1);
    clock.increment(1);
    expect(a.sent[1]).toMatchObject({ notification: { type_id: 1000, content: { numberOfDevices: 2, averageConnectedTime: 61, numberOfConnectingDevices: 0, rx: 10, tx: 20 } } });
    clock.increment(30_000);
    expect(a.sent).toHaveLength(3);
    member.leave();
    clock.increment(60_000);
    expect(a.sent).toHaveLength(3);
  });

  it('answers serial_number_search with up to 50 serials of that prefix (any case), honours drop-notifications, and says goodbye on exit', () => {
    const { ui, client, event } = setup();
    const a = client();
    const member = ui.join(a.c);
    member.message(JSON.stringify({ command: 'serial_number_search', serial_prefix: 'A0B1C2000', id: 7 }));
    expect(a.sent.at(-1)).toEqual({ serialNumbers: [SERIALS[0], SERIALS[1]] });
    member.message(JSON.stringify({ command: 'serial_number_search', serial_prefix: '' }));
    expect(a.sent.at(-1)).toEqual({ serialNumbers: [] });
    member.message(JSON.stringify({ 'drop-notifications': [6000] }));
    const before = a.sent.length;
    event('state', SERIALS[0]!);
    expect(a.sent).toHaveLength(before);
    event('connected', SERIALS[0]!);
    expect(a.sent).toHaveLength(before + 1);
    member.message(JSON.stringify({ command: 'reboot-everything' }));
    expect(a.sent.at(-1)).toEqual({ error: 'invalid command' });
    member.message('not json');
    expect(a.sent.at(-1)).toEqual({ error: 'not a JSON object' });
    member.message(JSON.stringify({ command: 'exit' }));
    expect(a.sent.at(-1)).toEqual({ closing: 'Goodbye! Aurevoir! Hasta la vista!' });
    expect(a.closed).toEqual([[1000, 'exit']]);
  });

  it('closes a client that cannot keep up, and every client at shutdown', () => {
    const { ui, client, event } = setup();
    const slow = client();
    const fine = client();
    ui.join(slow.c);
    ui.join(fine.c);
    slow.c.bufferedAmount = 9 * 1024 * 1024;
    event('state', SERIALS[0]!);
    expect(slow.closed).toEqual([[1013, expect.stringMatching(/too slow/)]]);
    expect(ui.size).toBe(1);
    ui.close();
    expect(fine.closed).toEqual([[1001, expect.any(String)]]);
  });
});
