import { Type } from 'typebox';
import { COMMAND_METHODS } from '../../protocol/frame.js';
import { Command } from '../../store/records.js';

/**
 * Request and response shapes of the device command POSTs (spec "Commands to a device").
 * The schemas check types (and document the fields in OpenAPI); ranges, enums that depend on
 * other fields and JSON-text parsing are checked by the command service's planners
 * (actors/command-params.ts), which answer a coded 400 naming the field. Unknown body fields are
 * ignored rather than refused, so clients written for the upstream gateway keep working.
 */

const serialNumber = Type.Optional(Type.String({
  description: 'Optional; when present it must be the path serial (400 SERIAL_MISMATCH otherwise).',
}));
const when = Type.Optional(Type.Integer({
  minimum: 0,
  description: 'Epoch seconds to run at; 0 (default) runs now. A future time schedules the command (it stays pending until then).',
}));
const keepRedirector = Type.Optional(Type.Boolean({ description: 'Keep the redirector (the way back to this gateway); default true.' }));
/** Objects are accepted as well as their JSON text: both are common in clients. */
const jsonText = (description: string) => Type.Union([Type.String(), Type.Object({}, { additionalProperties: true })], { description });

export const GenericCommandBody = Type.Object({
  serialNumber,
  command: Type.String({ enum: [...COMMAND_METHODS], description: 'The AP method to run (e.g. ping, leds, reboot).' }),
  payload: Type.Optional(jsonText('The method params as a JSON object or its JSON text; `serial` and `when` are added.')),
  when,
}, { description: 'Any AP method with a raw payload. configure/upgrade/factory queue like their own endpoints.' });

export const ConfigureBody = Type.Object({
  serialNumber,
  UUID: Type.Optional(Type.Union([Type.Integer(), Type.String()], { description: 'Ignored, as by the upstream gateway: the new configuration gets uuid = now (epoch s).' })),
  configuration: jsonText('The uCentral configuration: a JSON object or its JSON text (400 INVALID_CONFIGURATION otherwise).'),
  when,
});

export const ConfigureQuery = Type.Object({
  strict: Type.Optional(Type.Boolean({
    description: 'true: any error the AP answers makes the command failed, error 1 (applied with substitutions) included. '
      + 'Default false: error 1 is completed. Still a 200 either way (read status); the upstream gateway answers 400 with the record.',
  })),
}, { additionalProperties: false });

export const PingBody = Type.Object({ serialNumber });

export const UpgradeBody = Type.Object({
  serialNumber,
  uri: Type.String({ description: 'http(s) URL of the firmware image.' }),
  when,
  keepRedirector,
  signature: Type.Optional(Type.String({ description: 'Firmware signature, forwarded to the AP as `signature`.' })),
});

/** Upstream clients send the firmware signature in the query string. */
export const UpgradeQuery = Type.Object({
  FWsignature: Type.Optional(Type.String({ description: 'Firmware signature (as upstream, in the query); the body `signature` wins.' })),
}, { additionalProperties: false });

export const RebootBody = Type.Object({ serialNumber, when });

export const FactoryBody = Type.Object({ serialNumber, when, keepRedirector });

export const ScriptBody = Type.Object({
  serialNumber,
  timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600, description: 'Seconds the AP may run the script (default 30, or the stored script value); not with deferred.' })),
  type: Type.Optional(Type.String({
    enum: ['shell', 'ucode', 'uci', 'bundle', 'diagnostic'],
    description: 'Required with an inline script. diagnostic: the AP\'s own diagnostic bundle (neither script nor scriptId).',
  })),
  script: Type.Optional(Type.String({ description: 'The script, base64. Send either script or scriptId ("" counts as absent).' })),
  scriptId: Type.Optional(Type.String({ description: 'A stored script (GET /scripts). Send either script or scriptId (both: 400).' })),
  deferred: Type.Optional(Type.Boolean({ description: 'The AP acknowledges at once, runs in the background and uploads its output to uri.' })),
  uri: Type.Optional(Type.String({ description: 'Where a deferred script uploads its output (http or https; "" counts as absent).' })),
  signature: Type.Optional(Type.String()),
  when,
});

export const LedsBody = Type.Object({
  serialNumber,
  when,
  duration: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600, description: 'Seconds (default 30), always sent; the AP uses it for the blink pattern.' })),
  pattern: Type.String({ enum: ['on', 'off', 'blink'] }),
});

export const TraceBody = Type.Object({
  serialNumber,
  when,
  duration: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600, description: 'Seconds to capture (default 30); wins over numberOfPackets.' })),
  numberOfPackets: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Packets to capture when no duration is given; 0 means by duration.' })),
  network: Type.Optional(Type.String({ description: 'network or interface is required.' })),
  interface: Type.Optional(Type.String()),
});

export const WifiscanBody = Type.Object({
  serialNumber,
  verbose: Type.Optional(Type.Boolean({ description: 'Full scan entries (default false).' })),
  activeScan: Type.Optional(Type.Boolean({ description: 'Active (probe) scan; default false (passive).' })),
  override_dfs: Type.Optional(Type.Boolean({ description: 'Scan DFS channels too (default true).' })),
  bandwidth: Type.Optional(Type.Integer({ minimum: 0, maximum: 320 })),
  selector: Type.Optional(Type.Object({
    bands: Type.Optional(Type.Array(Type.String(), { description: '"2", "5" or "6" (a trailing G is accepted).' })),
    channels: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 255 }))),
  }, { description: 'Which bands and/or channels to scan; absent: all.' })),
  ies: Type.Optional(Type.Array(Type.Integer({ minimum: 0, maximum: 255 }), { description: 'Information element ids to report.' })),
});

export const RequestBody = Type.Object({
  serialNumber,
  when,
  message: Type.String({ enum: ['state', 'healthcheck'], description: 'What the AP should send now; its reply replaces the command results.' }),
});

export const EventqueueBody = Type.Object({
  serialNumber,
  types: Type.Array(Type.String(), { description: 'Event types to fetch from the AP queue, e.g. dhcp, rrm.' }),
});

export const TelemetryBody = Type.Object({
  serialNumber,
  interval: Type.Optional(Type.Integer({ minimum: 0, maximum: 120, description: 'Seconds between frames, 1..120; 0 stops streaming. Required unless statusOnly.' })),
  lifetime: Type.Optional(Type.Integer({ minimum: 1, description: 'Seconds the stream lives (default 3600).' })),
  messagebus: Type.Optional(Type.Boolean({ description: 'true: publish to the message bus (NATS subject telemetry.<serial>; 400 NOT_CONFIGURED without NATS); false: websocket.' })),
  types: Type.Optional(Type.Array(Type.String(), { description: 'Default: wifi-frames, dhcp-snooping, state.' })),
  uuid: Type.Optional(Type.String({ description: 'With interval 0: the stream to stop (default: all of the device); ignored when starting.' })),
});

export const TelemetryQuery = Type.Object({
  statusOnly: Type.Optional(Type.Boolean({ description: 'Only report the telemetry status; nothing is sent to the AP.' })),
}, { additionalProperties: false });

/**
 * spec "PingResult"; latency is a number of milliseconds (the upstream string "12.345ms." is a
 * bug, docs/upstream.md#gateway-behaviour-airtwin-does-not-copy).
 */
export const PingResult = Type.Object({
  serialNumber: Type.String(),
  currentUTCTime: Type.Integer({ description: 'Gateway time, epoch ms.' }),
  deviceUTCTime: Type.Integer({ description: 'The AP clock from its reply, epoch ms (0 when the AP does not say).' }),
  latency: Type.Number({ description: 'Round trip in ms, measured from send to reply.' }),
  configurationUUID: Type.Integer({ description: 'The configuration uuid the AP runs.' }),
}, { $id: 'PingResult', title: 'PingResult' });

export const TelemetryStatus = Type.Object({
  running: Type.Boolean(),
  interval: Type.Integer({ description: 'Smallest interval of the live streams; 0 when none.' }),
  websocketTimer: Type.Integer({ description: 'Latest expiry (epoch s) of a websocket stream; 0 when none.' }),
  messagebusTimer: Type.Integer(),
  websocketClients: Type.Integer(),
  messagebusClients: Type.Integer(),
  websocketPackets: Type.Integer(),
  messagebusPackets: Type.Integer(),
});

/**
 * The telemetry Command record plus the upstream answer's fields. The upstream `status` object
 * is `telemetry` here: `status` stays the Command's status string, as in every other answer.
 */
export const TelemetryResponse = Type.Object({
  ...Type.Partial(Command).properties,
  action: Type.String({ description: 'e.g. "WebSocket telemetry started.", "WebSocket telemetry stopped.", "Telemetry status only."' }),
  serialNumber: Type.String(),
  uuid: Type.Optional(Type.String({ description: 'The stream id (the telemetry command UUID).' })),
  uri: Type.Optional(Type.String({ description: 'Websocket to subscribe to (websocket streams with interval > 0).' })),
  telemetry: Type.Optional(TelemetryStatus),
}, {
  description: 'The telemetry Command record (absent for statusOnly) with action, uuid, the websocket uri and the telemetry '
    + 'status (upstream `status`, renamed `telemetry` because `status` is the command status).',
});
