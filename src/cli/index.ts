/**
 * The `airtwin` command: the composition root. The only module that reads process.env and
 * process.argv, handles signals and decides exit codes (0 ok, 1 failure, 2 bad usage or config).
 *
 * Each command's modules are imported when that command runs: loading all of them (the servers,
 * the schema library, the simulator) took ~1.2 s through the TypeScript loader, which `airtwin
 * replay` or `--help` do not need.
 */
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, parseRecordMaxBytes, parseSpeed } from '../config/flags.js';
// Node built-ins only: cheap to load for every command.
import { isStdout } from '../links/record/ndjson-writer.js';
import { humanLogLines } from '../server/human-log.js';
import { DEFAULT_FRAME_BUDGET } from '../protocol/frame-budget.js';
import { VERSION } from '../version.js';
import { serviceSignals, stopOnSignal } from './signals.js';

/**
 * Where a running command logs: with its messages (`say`), as readable lines when that is a
 * terminal, else as pino's JSON lines (undefined: pino's own stdout).
 */
function logDestinationFor(say: NodeJS.WritableStream): { logDestination?: NodeJS.WritableStream } {
  if ((say as { isTTY?: boolean }).isTTY === true) return { logDestination: humanLogLines(say) };
  return say === process.stderr ? { logDestination: process.stderr } : {};
}

function parsePort(flag: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ConfigError(`${flag}: ${text} is not a port number`);
  return n;
}

/** A flag that takes a whole number >= 0 (env var defaults arrive as text too). */
function wholeNumber(flag: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new ConfigError(`${flag}: ${value} is not a whole number >= 0`);
  return n;
}

/** Flags the user typed (commander fills defaults we do not want to win over env or file). */
function typedFlags(cmd: Command): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(cmd.opts())) {
    if (key === 'config') continue;
    if (cmd.getOptionValueSource(key) === 'cli') out[key] = value;
  }
  return out;
}

const program = new Command('airtwin')
  .description('A digital twin of an OpenWiFi-style Wi-Fi network: device gateway and RRM APIs over simulated, real or replayed APs.')
  .version(VERSION)
  .exitOverride()
  .showHelpAfterError('(run with --help for usage)');

program.command('serve')
  .description('Run both APIs, the fleet and DuckDB in one process (the default of `npm start`).')
  .option('--config <file>', 'JSON or YAML file with settings (keys as the flags in camelCase)', process.env.AIRTWIN_CONFIG)
  .option('--data-dir <dir>', 'data folder (DuckDB file airtwin.duckdb inside)', './data')
  .option('--gateway-port <port>', 'device gateway port', '16002')
  .option('--rrm-port <port>', 'RRM service port', '16789')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--scenario <name|file>', 'venue to simulate', 'default')
  .option('--no-sim', 'do not run the simulated venue')
  .option('--seed <n>', 'seed of the simulation (printed when not given)')
  .option('--speed <n|max>', 'simulation speed: a factor of real time, or max', '1')
  .option('--warm-up <s>', 'seconds of history the venue starts with, made faster than real time (default: the scenario\'s, 300 for default; 0: none)')
  .option('--replay <file>', 'replay a recording (NDJSON, or gzip of it; - or a pipe is copied to a temporary file first)')
  .option('--keep-time', 'replay with the recorded timestamps')
  .option('--record <file>', 'record every frame of every link (NDJSON; gzip when FILE ends in .gz)')
  .option('--record-max-bytes <n>', 'rotate the recording past this size of text (FILE, FILE.1, ...)')
  .option('--nats <url>', 'NATS server for real APs (e.g. nats://127.0.0.1:4222)')
  .option('--nats-durable <name>', 'JetStream durable consumer of this worker (one serve per durable)', 'airtwin-serve')
  .option('--nats-filter <subjects>', 'this worker\'s part of the fleet, comma-separated subjects, e.g. ucentral.a0b1c2300047.*')
  .option('--api-tokens <list>', 'static bearer tokens, comma-separated, each token or token:role')
  .option('--jwt-secret <secret>', 'accept HS256 JWTs signed with this secret')
  .option('--jwt-public-key <file>', 'accept RS256 JWTs verified with this PEM public key')
  .option('--security-url <url>', 'validate tokens with an OpenWiFi-style security service')
  .option('--tls-cert <file>', 'serve HTTPS with this certificate')
  .option('--tls-key <file>', 'key of --tls-cert')
  .addOption(new Option('--log-level <level>', 'log level').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'))
  .option('--body-limit <bytes>', 'largest request body', String(1024 * 1024))
  .option('--headers-timeout <s>', 'seconds a client has to send the request line and headers (408 after)', '20')
  .option('--request-timeout <s>', 'seconds a client has to send a whole request, body included (408 after)', '60')
  .option('--keep-alive-timeout <s>', 'seconds an idle keep-alive connection stays open', '72')
  .option('--connection-timeout <s>', 'seconds a connection may stay silent both ways (0: never)', '300')
  .option('--max-connections <n>', 'connections open at once on each API port (0: no cap)', '400')
  .option('--no-auto-provision', 'refuse APs that have no device record')
  .option('--rrm-wifi-scan-interval <s>', 'RRM data collection: seconds between wifi scans of a zone member (default 900; 0 disables)')
  .option('--rrm-capabilities-interval <s>', 'RRM data collection: seconds between state/capabilities refreshes (default 3600)')
  .option('--rrm-collect-interval <s>', 'RRM data collection: seconds between looks for due scans (default 30)')
  .option('--rrm-config-debounce <s>', 'RRM apply: seconds a device waits after one configure before the next (default 30)')
  .option('--rrm-plugin <file>', 'RRM: a module exporting an optimizer; it becomes a mode of its algorithm (docs/rrm.md)')
  .option('--no-rtty', 'turn remote sessions off: GET rtty answers 503 RTTY_DISABLED')
  .option('--rtty-server <host>', 'send APs to this external rtty server (rttys); without it airtwin runs its own')
  .option('--rtty-host <host>', 'host the internal rtty server is named by to APs and browsers (default localhost)')
  .option('--rtty-port <port>', 'rtty port for devices: the external server\'s, or the internal one\'s (default 5912)')
  .option('--rtty-viewport <port>', 'rtty web view port: the external server\'s, or the internal one\'s (default 5913)')
  .option('--rtty-max-sessions <n>', 'sessions the internal rtty server holds at once (default 0: no limit)')
  .option('--rtty-timeout <s>', 'seconds an AP keeps trying to reach the rtty server (default 60)')
  .option('--rtty-token <token>', 'one token for every rtty session (default: random per session)')
  .option('--upload-port <port>', 'port of the file uploader APs send trace captures and script output to (default 16003; a free one with --gateway-port 0)')
  .option('--upload-url <url>', 'base URL APs reach the uploader at (default http(s)://<host>:<upload port>)')
  .option('--upload-max-bytes <n>', 'largest file an AP may upload (default 10 MiB)')
  .option('--files-max-age <s>', 'seconds an uploaded file is kept (default 7 days)')
  .option('--files-max-bytes <n>', 'bytes all uploaded files may take; the oldest go first (default 1 GiB)')
  .option('--ap-max-frames-per-s <n>', `frames/s one AP may send over NATS, bursts of 10 s; more are dropped, counted (default ${DEFAULT_FRAME_BUDGET.framesPerS}; 0: no limit)`)
  .option('--ap-max-bytes-per-s <n>', `bytes/s one AP may send over NATS, bursts of 10 s (default ${DEFAULT_FRAME_BUDGET.bytesPerS}; 0: no limit)`)
  .option('--ap-offender-seconds <s>', `disconnect an AP over its budget this many seconds in a row (default ${DEFAULT_FRAME_BUDGET.strikes}; 0: never)`)
  .addOption(new Option('--wire <profile>', 'wire profile of both APIs: openwifi (as the OpenWiFi gateway sends; default) or spec (the API documents)').choices(['openwifi', 'spec']))
  .action(async (_opts, cmd: Command) => {
    const [{ loadServeConfig }, { startServe }] = await Promise.all([import('../config/load.js'), import('../runtime/serve.js')]);
    const config = loadServeConfig({ flags: typedFlags(cmd), env: process.env, configFile: cmd.opts().config as string | undefined });
    // `--record /dev/stdout`: the recording owns standard output; the banner and logs go to stderr
    // (they used to land in the recording, the API token among them).
    const say = config.record !== undefined && isStdout(config.record) ? process.stderr : process.stdout;
    // Ctrl-C during start-up (copying `--replay -` can take a while) ends it cleanly too.
    const signals = serviceSignals(say);
    const running = await startServe(config, {
      print: (line) => say.write(`${line}\n`),
      ...logDestinationFor(say),
      ...(process.stderr.isTTY ? { progress: process.stderr } : {}),
      stop: signals.starting,
    });
    if (signals.starting.aborted) {
      await running.close();
      return;
    }
    signals.running(() => running.close());
  });

program.command('edge')
  .description('Run the uCentral websocket edge: real APs connect here; frames go to NATS for `serve --nats`.')
  .option('--port <port>', 'websocket port for APs', '15002')
  .option('--host <host>', 'address to listen on', '0.0.0.0')
  .option('--nats <url>', 'NATS server(s), comma-separated for a cluster', 'nats://127.0.0.1:4222')
  .option('--tls-cert <file>', 'server certificate (with --tls-key and --client-ca: TLS with client certificates)')
  .option('--tls-key <file>', 'key of --tls-cert')
  .option('--client-ca <file>', 'CA that issued the APs\' certificates')
  .option('--no-allow-mismatch', 'refuse an AP whose certificate CN differs from its serial')
  .option('--simulator-id <cn>', 'admit simulator certificates (CN starting with 53494d) with this CN')
  .option('--idle-timeout <s>', 'drop an AP silent for this long', '600')
  .option('--handshake-timeout <s>', 'cut a connection that has not finished TLS and the websocket upgrade, or then sent its connect, within this', '30')
  .option('--max-connections <n>', 'open connections the device port takes; more are refused (counted)', '15000')
  .option('--max-frame-bytes <n>', 'largest frame accepted from an AP', '512000')
  .option('--outage-max-bytes <n>', 'AP frames held while NATS is down, sent when it is back; later ones are lost (counted)', String(64 * 1024 * 1024))
  .option('--record <file>', 'record every frame both ways and each AP\'s connect/disconnect (NDJSON; gzip when FILE ends in .gz)')
  .option('--record-max-bytes <n>', 'rotate the recording past this size of text (FILE, FILE.1, ...)')
  .option('--ap-max-frames-per-s <n>', 'frames/s one AP may send, bursts of 10 s; more are dropped, counted (0: no limit)', process.env.AIRTWIN_AP_MAX_FRAMES_PER_S ?? String(DEFAULT_FRAME_BUDGET.framesPerS))
  .option('--ap-max-bytes-per-s <n>', 'bytes/s one AP may send, bursts of 10 s (0: no limit)', process.env.AIRTWIN_AP_MAX_BYTES_PER_S ?? String(DEFAULT_FRAME_BUDGET.bytesPerS))
  .option('--ap-offender-seconds <s>', 'disconnect an AP over its budget this many seconds in a row (0: never)', process.env.AIRTWIN_AP_OFFENDER_SECONDS ?? String(DEFAULT_FRAME_BUDGET.strikes))
  .option('--metrics-port <port>', 'Prometheus metrics at http://HOST:PORT/metrics (and /health)', process.env.AIRTWIN_METRICS_PORT ?? '15010')
  .addOption(new Option('--log-level <level>', 'log level').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'))
  .action(async (opts: { port: string; host: string; nats: string; tlsCert?: string; tlsKey?: string; clientCa?: string; allowMismatch: boolean; simulatorId?: string; idleTimeout: string; handshakeTimeout: string; maxConnections: string; maxFrameBytes: string; outageMaxBytes: string; record?: string; recordMaxBytes?: string; apMaxFramesPerS: string; apMaxBytesPerS: string; apOffenderSeconds: string; metricsPort: string; uploadTarget?: string; uploadPort: string; logLevel: 'info' }) => {
    const idle = Number(opts.idleTimeout);
    const maxFrame = Number(opts.maxFrameBytes);
    const outageMax = Number(opts.outageMaxBytes);
    if (!(idle > 0)) throw new ConfigError(`--idle-timeout: ${opts.idleTimeout} is not a positive number of seconds`);
    const handshake = Number(opts.handshakeTimeout);
    if (!(handshake > 0)) throw new ConfigError(`--handshake-timeout: ${opts.handshakeTimeout} is not a positive number of seconds`);
    const maxConnections = wholeNumber('--max-connections', opts.maxConnections);
    if (maxConnections < 1) throw new ConfigError('--max-connections: at least 1');
    if (!Number.isInteger(maxFrame) || maxFrame < 1024) throw new ConfigError(`--max-frame-bytes: ${opts.maxFrameBytes} must be an integer >= 1024`);
    if (!Number.isInteger(outageMax) || outageMax < 0) throw new ConfigError(`--outage-max-bytes: ${opts.outageMaxBytes} is not a whole number of bytes (0 holds nothing)`);
    const recordMax = parseRecordMaxBytes(opts.recordMaxBytes);
    if (recordMax !== undefined && !opts.record) throw new ConfigError('--record-max-bytes: only with --record');
    if (opts.uploadTarget !== undefined && !/^https?:\/\/\S+$/.test(opts.uploadTarget)) throw new ConfigError(`--upload-target: ${opts.uploadTarget} is not an http(s) URL`);
    const budget = {
      framesPerS: wholeNumber('--ap-max-frames-per-s', opts.apMaxFramesPerS),
      bytesPerS: wholeNumber('--ap-max-bytes-per-s', opts.apMaxBytesPerS),
      strikes: wholeNumber('--ap-offender-seconds', opts.apOffenderSeconds),
    };
    const { runEdge } = await import('../runtime/edge.js');
    // As serve's: a recording to standard output gets it alone.
    const say = opts.record !== undefined && isStdout(opts.record) ? process.stderr : process.stdout;
    const signals = serviceSignals(say);
    const edge = await runEdge({
      port: parsePort('--port', opts.port), host: opts.host, nats: opts.nats, tlsCert: opts.tlsCert, tlsKey: opts.tlsKey, clientCa: opts.clientCa,
      allowMismatch: opts.allowMismatch, simulatorId: opts.simulatorId, idleTimeoutS: idle, handshakeTimeoutS: handshake, maxConnections, maxFrameBytes: maxFrame, outageMaxBytes: outageMax, budget, metricsPort: parsePort('--metrics-port', opts.metricsPort), logLevel: opts.logLevel,
      record: opts.record, recordMaxBytes: recordMax, ...logDestinationFor(say),
      ...(opts.uploadTarget ? { uploadTarget: opts.uploadTarget, uploadPort: parsePort('--upload-port', opts.uploadPort) } : {}),
    });
    if (signals.starting.aborted) {
      await edge.close();
      return;
    }
    signals.running(() => edge.close());
  });

program.command('arena')
  .description('Run RRM channel modes (built-in and plug-ins) on scenarios x seeds offline, on virtual time, no servers; score each plan by its co-channel interference and its gap to the exact optimum.')
  .option('--scenarios <list>', 'comma-separated scenario names or files', 'lab,default,hotel,hall')
  .option('--seeds <list>', 'seeds: 1,2,3 or 1-3', '1-3')
  .option('--modes <list>', 'channel modes (default: every mode but random and exact, plug-ins included)')
  .option('--rrm-plugin <file>', 'a module exporting an optimizer: it runs as one more mode')
  .option('--warmup <duration>', 'virtual time each venue runs before its reports are read', '10m')
  .option('--exact-time-limit <s>', 'HiGHS time limit per zone and band, seconds', '20')
  .option('--exact-max-aps <n>', 'zones with more APs get no exact reference', '60')
  .option('--chart <file.svg>', 'write the chart here', 'arena.svg')
  .option('--json', 'print the result as JSON instead of the table')
  .action(async (opts: { scenarios: string; seeds: string; modes?: string; rrmPlugin?: string; warmup: string; exactTimeLimit: string; exactMaxAps: string; chart: string; json?: boolean }) => {
    const seeds = opts.seeds.split(',').flatMap((part) => {
      const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
      if (!m) throw new ConfigError(`--seeds: '${part}' is not a seed or a range (1,2,3 or 1-3)`);
      const a = Number(m[1]);
      const b = m[2] === undefined ? a : Number(m[2]);
      return Array.from({ length: Math.max(0, b - a + 1) }, (_, k) => a + k);
    });
    const positive = (name: string, v: string) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new ConfigError(`${name}: ${v} is not a positive integer`);
      return n;
    };
    const [{ runArena, arenaTable }, { parseDuration }] = await Promise.all([import('./arena.js'), import('../../simulator/run.js')]);
    const result = await runArena({
      scenarios: opts.scenarios.split(',').map((x) => x.trim()).filter(Boolean), seeds,
      ...(opts.modes ? { modes: opts.modes.split(',').map((x) => x.trim()).filter(Boolean) } : {}),
      ...(opts.rrmPlugin ? { plugin: opts.rrmPlugin } : {}),
      warmupMs: parseDuration(opts.warmup), exactTimeLimit: positive('--exact-time-limit', opts.exactTimeLimit),
      exactMaxAps: positive('--exact-max-aps', opts.exactMaxAps), chart: opts.chart,
      ...(process.stderr.isTTY && !opts.json ? { progress: process.stderr } : {}),
    });
    process.stdout.write(opts.json ? `${JSON.stringify(result, null, 2)}\n` : `${arenaTable(result)}\nchart: ${opts.chart}\n`);
  });

program.command('simulate')
  .description('Run a venue straight from the simulator, as fast as possible, with no servers; write every frame to a recording.')
  .option('--scenario <name|file>', 'venue to simulate', 'default')
  .option('--seed <n>', 'seed (default: the scenario\'s own)')
  .option('--until <duration>', 'simulated time to run, e.g. 90s, 10m, 24h', '10m')
  .option('--record <file>', 'NDJSON recording to write, gzip when FILE ends in .gz (no servers, as fast as possible)')
  .option('--record-max-bytes <n>', 'with --record: cut the recording into FILE, FILE.1, ... of at most this size of text')
  .option('--edge <url>', 'instead: connect the venue\'s APs to an edge as websocket clients (ws:// or wss://), in real time x --speed')
  .option('--nats <url>', 'instead: publish the venue\'s APs straight onto NATS, in real time x --speed')
  .option('--speed <n|max>', 'with --edge/--nats: a factor of real time; a recording run is always as fast as possible', '1')
  .option('--limit <n>', 'with --edge/--nats: only the first N APs of the venue')
  .action(async (opts: { scenario: string; seed?: string; until: string; record?: string; recordMaxBytes?: string; edge?: string; nats?: string; speed: string; limit?: string }) => {
    const seed = opts.seed === undefined ? undefined : Number(opts.seed);
    if (seed !== undefined && (!Number.isInteger(seed) || seed < 0)) throw new ConfigError(`--seed: ${opts.seed} is not a non-negative integer`);
    // `--record ""` (an unset variable) is a target given badly, not none: checkRecordFile says so.
    const targets = [opts.record, opts.edge, opts.nats].filter((t) => t !== undefined).length;
    if (targets !== 1) throw new ConfigError('simulate: give exactly one of --record FILE, --edge URL or --nats URL');
    const recordMax = parseRecordMaxBytes(opts.recordMaxBytes);
    if (recordMax !== undefined && opts.record === undefined) throw new ConfigError('--record-max-bytes: only with --record');
    if (opts.record !== undefined) {
      // Ctrl-C or SIGTERM ends the run at the next slice with whole lines, the file closed.
      const { signal, off } = stopOnSignal('stopping; the recording keeps what was simulated so far');
      try {
        // `--record /dev/stdout | gzip > x.gz`: the messages must not land in the recording.
        const out = isStdout(opts.record) ? process.stderr : process.stdout;
        const { runSimulate } = await import('../runtime/simulate.js');
        await runSimulate({ scenario: opts.scenario, seed, until: opts.until, record: opts.record, recordMaxBytes: recordMax, signal }, out);
      } finally {
        off();
      }
      return;
    }
    if (opts.edge === '' || opts.nats === '') throw new ConfigError(`--${opts.edge === '' ? 'edge' : 'nats'}: "" is invalid (no URL)`);
    const speed = parseSpeed(opts.speed);
    if (speed === 'max') throw new ConfigError('--speed: max is only for --record; give a factor of real time with --edge/--nats');
    const limit = opts.limit === undefined ? undefined : Number(opts.limit);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new ConfigError(`--limit: ${opts.limit} is not a positive integer`);
    const { startSimulateLoad } = await import('../runtime/simulate-load.js');
    const signals = serviceSignals();
    const load = await startSimulateLoad({ scenario: opts.scenario, seed, speed, edge: opts.edge, nats: opts.nats, limit }, process.stdout);
    if (signals.starting.aborted) {
      await load.stop();
      return;
    }
    signals.running(() => load.stop());
  });

program.command('replay')
  .description('Replay a recording into a data dir (device actors get the recorded frames; results are ingested as if live).')
  .argument('<file>', 'NDJSON recording, plain or gzip (rotated parts FILE.1, FILE.2, ... or FILE.1.gz, ... are read too); - or a pipe: copied to a temporary file under TMPDIR first')
  .option('--data-dir <dir>', 'data folder to replay into', './data')
  .option('--speed <n|max>', 'a factor of recorded time, or max', 'max')
  .option('--keep-time', 'keep the recorded timestamps instead of shifting the first line to now')
  .action(async (file: string, opts: { dataDir: string; speed: string; keepTime?: boolean }) => {
    const speed = parseSpeed(opts.speed);
    const { runReplay } = await import('../runtime/replay.js');
    // Ctrl-C or SIGTERM ends the replay after the current line; what was played is written.
    const { signal, off } = stopOnSignal('stopping after the current line; what was played so far is written');
    try {
      const { summary } = await runReplay({ file, speed, keepTime: opts.keepTime === true, dataDir: opts.dataDir },
        { out: process.stdout, progress: process.stdout.isTTY === true, stop: signal });
      // Lines, and not one of them a recording's (an image, a log file): say so in the exit code.
      if (summary.accepted === 0 && summary.rejectedCount > 0 && !summary.stopped) {
        process.stderr.write(`airtwin: ${file === '-' ? 'standard input' : file} does not look like a recording: none of its ${summary.rejectedCount} lines could be played\n`);
        process.exitCode = 1;
      }
    } finally {
      off();
    }
  });

program.command('record')
  .description('Make a recording from raw documents: a folder of state / healthcheck / capabilities JSON files, such as captures from real APs.')
  .requiredOption('--from-states <dir>', 'folder of JSON documents')
  .requiredOption('--out <file>', 'NDJSON recording to write (gzip when FILE ends in .gz)')
  .action(async (opts: { fromStates: string; out: string }) => {
    const { runRecordImport } = await import('../runtime/record-import.js');
    await runRecordImport({ fromStates: opts.fromStates, out: opts.out }, process.stdout);
  });

program.command('bench')
  .description('Run the benchmarks (all, or the named ones); each ends with one JSON result line.')
  .argument('[names...]', 'benchmark names: the files of bench/ (gateway-api, ingest, simulator, fleet, rrm, nats-path, replay)')
  .allowUnknownOption(true)
  .action(async () => {
    // Same runner as `npm run bench`: one process per benchmark, flags passed through.
    const { spawnSync } = await import('node:child_process');
    const runner = new URL('../../bin/bench.mjs', import.meta.url).pathname;
    const args = process.argv.slice(process.argv.indexOf('bench') + 1);
    const r = spawnSync(process.execPath, [runner, ...args], { stdio: 'inherit' });
    if (r.status !== 0) process.exitCode = r.status ?? 1;
  });

// `airtwin replay FILE | head`: a reader that goes away is no failure of the command. What it
// would have printed is dropped and the work goes on (the data dir is the result, not the text).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
  });
}

/**
 * The classes of the other errors that are the user's input or environment rather than a bug,
 * imported once something failed: the module that threw one is loaded by then.
 */
async function userErrors() {
  const [{ ScenarioError }, { RecordingError }, { NotARecordingError }, { NothingToRecordError }, { ReplayInputError }] = await Promise.all([
    import('../../simulator/scenario.js'), import('../links/record/ndjson-writer.js'),
    import('../links/replay/read-recording.js'), import('../runtime/record-import.js'), import('../runtime/replay-input.js'),
  ]);
  return { ScenarioError, RecordingError, NotARecordingError, NothingToRecordError, ReplayInputError };
}

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    process.exit(e.exitCode === 0 ? 0 : 2);
  }
  const oneLine = (code: number, error: Error): never => {
    process.stderr.write(`airtwin: ${error.message}\n`);
    process.exit(code);
  };
  if (e instanceof ConfigError) oneLine(2, e);
  // Should these modules fail to load, the error is printed whole below.
  const known = await userErrors().catch(() => undefined);
  if (e instanceof Error && ((known && e instanceof known.ScenarioError) || /^scenario '.*' not found/.test(e.message))) oneLine(2, e);
  // A recording that could not be written (disk full, ...) is the environment, not a bug: one line.
  // A file whose head holds no recording line (an image, a video): said before anything is played;
  // a folder with nothing to import: said before a recording is written; a stream to replay
  // that could not be copied (a full TMPDIR).
  if (known && (e instanceof known.RecordingError || e instanceof known.NotARecordingError || e instanceof known.NothingToRecordError
    || e instanceof known.ReplayInputError)) oneLine(1, e);
  process.stderr.write(`airtwin: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
}
