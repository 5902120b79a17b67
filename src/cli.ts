/**
 * The `airtwin` command: the composition root. The only module that reads process.env and
 * process.argv, handles signals and decides exit codes (0 ok, 1 failure, 2 bad usage or config).
 */
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, loadServeConfig } from './config/load.js';
import { startServe, VERSION } from './commands/serve.js';
import { runSimulate } from './commands/simulate.js';
import { runReplay } from './commands/replay.js';
import { runRecordImport } from './commands/record-import.js';
import { ScenarioError } from '../simulator/scenario.js';

/** `--speed` as the commands take it: a positive factor or 'max'. */
function parseSpeed(text: string): number | 'max' {
  if (text === 'max') return 'max';
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`--speed: ${text} is not a positive number or max`);
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
  .option('--replay <file>', 'replay a recording (NDJSON)')
  .option('--keep-time', 'replay with the recorded timestamps')
  .option('--record <file>', 'record every frame of every link (NDJSON)')
  .option('--record-max-bytes <n>', 'rotate the recording past this size (FILE, FILE.1, ...)')
  .option('--nats <url>', 'NATS server for real APs (e.g. nats://127.0.0.1:4222)')
  .option('--api-tokens <list>', 'static bearer tokens, comma-separated, each token or token:role')
  .option('--jwt-secret <secret>', 'accept HS256 JWTs signed with this secret')
  .option('--jwt-public-key <file>', 'accept RS256 JWTs verified with this PEM public key')
  .option('--security-url <url>', 'validate tokens with an OpenWiFi-style security service')
  .option('--tls-cert <file>', 'serve HTTPS with this certificate')
  .option('--tls-key <file>', 'key of --tls-cert')
  .addOption(new Option('--log-level <level>', 'log level').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'))
  .option('--body-limit <bytes>', 'largest request body', String(1024 * 1024))
  .option('--no-auto-provision', 'refuse APs that have no device record')
  .action(async (_opts, cmd: Command) => {
    const config = loadServeConfig({ flags: typedFlags(cmd), env: process.env, configFile: cmd.opts().config as string | undefined });
    const running = await startServe(config, { print: (line) => process.stdout.write(`${line}\n`) });
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      process.stdout.write(`${signal}: shutting down\n`);
      running.close().then(() => process.exit(0), (e: unknown) => {
        process.stderr.write(`shutdown failed: ${String(e)}\n`);
        process.exit(1);
      });
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });

program.command('simulate')
  .description('Run a venue straight from the simulator, as fast as possible, with no servers; write every frame to a recording.')
  .option('--scenario <name|file>', 'venue to simulate', 'default')
  .option('--seed <n>', 'seed (default: the scenario\'s own)')
  .option('--until <duration>', 'simulated time to run, e.g. 90s, 10m, 24h', '10m')
  .requiredOption('--record <file>', 'NDJSON recording to write')
  .option('--speed <n|max>', 'accepted for symmetry with serve; a recording run is always discrete-event', 'max')
  .action(async (opts: { scenario: string; seed?: string; until: string; record: string }) => {
    const seed = opts.seed === undefined ? undefined : Number(opts.seed);
    if (seed !== undefined && (!Number.isInteger(seed) || seed < 0)) throw new ConfigError(`--seed: ${opts.seed} is not a non-negative integer`);
    await runSimulate({ scenario: opts.scenario, seed, until: opts.until, record: opts.record }, process.stdout);
  });

program.command('replay')
  .description('Replay a recording into a data dir (device actors get the recorded frames; results are ingested as if live).')
  .argument('<file>', 'NDJSON recording (rotated parts FILE.1, FILE.2, ... are read too)')
  .option('--data-dir <dir>', 'data folder to replay into', './data')
  .option('--speed <n|max>', 'a factor of recorded time, or max', 'max')
  .option('--keep-time', 'keep the recorded timestamps instead of shifting the first line to now')
  .action(async (file: string, opts: { dataDir: string; speed: string; keepTime?: boolean }) => {
    await runReplay({ file, speed: parseSpeed(opts.speed), keepTime: opts.keepTime === true, dataDir: opts.dataDir },
      { out: process.stdout, progress: process.stdout.isTTY === true });
  });

program.command('record')
  .description('Make a recording from raw documents: a folder of state / healthcheck / capabilities JSON files, such as captures from real APs.')
  .requiredOption('--from-states <dir>', 'folder of JSON documents')
  .requiredOption('--out <file>', 'NDJSON recording to write')
  .action(async (opts: { fromStates: string; out: string }) => {
    await runRecordImport({ fromStates: opts.fromStates, out: opts.out }, process.stdout);
  });

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    process.exit(e.exitCode === 0 ? 0 : 2);
  }
  if (e instanceof ConfigError || e instanceof ScenarioError || (e instanceof Error && /^scenario '.*' not found/.test(e.message))) {
    process.stderr.write(`airtwin: ${e.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`airtwin: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
}
