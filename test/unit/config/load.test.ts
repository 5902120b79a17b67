import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDataDir, checkRecordFile, ConfigError, parseRecordMaxBytes, parseSpeed } from '../../../src/config/flags.js';
import { loadServeConfig } from '../../../src/config/load.js';

describe('loadServeConfig', () => {
  it('uses the documented defaults', () => {
    const c = loadServeConfig({ flags: {}, env: {} });
    expect(c).toMatchObject({ dataDir: './data', gatewayPort: 16002, rrmPort: 16789, host: '127.0.0.1', scenario: 'default', sim: true, speed: 1 });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('layers file < env < flags', () => {
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-cfg-'));
    const file = join(dir, 'c.yaml');
    writeFileSync(file, 'gatewayPort: 1000\nrrmPort: 1001\nhost: 0.0.0.0\n');
    const c = loadServeConfig({ flags: { gatewayPort: '3000' }, env: { AIRTWIN_RRM_PORT: '2001', AIRTWIN_SPEED: 'max', AIRTWIN_API_TOKENS: 'abcdefgh:admin, ijklmnop' }, configFile: file });
    expect(c.gatewayPort).toBe(3000);
    expect(c.rrmPort).toBe(2001);
    expect(c.host).toBe('0.0.0.0');
    expect(c.speed).toBe('max');
    expect(c.apiTokens).toEqual(['abcdefgh:admin', 'ijklmnop']);
  });

  it.each([
    [{ gatewayPort: 'abc' }, /--gateway-port/],
    [{ gatewayPort: '70000' }, /--gateway-port/],
    [{ speed: '-2' }, /--speed/],
    [{ nats: 'http://x' }, /--nats/],
    [{ jwtSecret: 'a'.repeat(20), jwtPublicKey: '/k.pem' }, /choose one/],
    [{ tlsCert: '/c.pem' }, /go together/],
    [{ rttyPort: '65536' }, /--rtty-port/],
  ])('names the flag of a bad value %j', (flags, message) => {
    expect(() => loadServeConfig({ flags, env: {} })).toThrow(ConfigError);
    expect(() => loadServeConfig({ flags, env: {} })).toThrow(message);
  });

  it('reads the rtty server settings from flags and env, numbers as numbers', () => {
    const c = loadServeConfig({ flags: { rttyServer: 'rtty.example.net', rttyPort: '6000' }, env: { AIRTWIN_RTTY_TIMEOUT: '90', AIRTWIN_RTTY_TOKEN: 'tok' } });
    expect(c).toMatchObject({ rttyServer: 'rtty.example.net', rttyPort: 6000, rttyTimeout: 90, rttyToken: 'tok' });
    expect(loadServeConfig({ flags: {}, env: {} }).rttyServer).toBeUndefined();
  });

  it('has rtty on by default; --no-rtty, AIRTWIN_RTTY=false or `rtty: false` in a file turn it off', () => {
    expect(loadServeConfig({ flags: {}, env: {} }).rtty).toBe(true);
    expect(loadServeConfig({ flags: { rtty: false }, env: {} }).rtty).toBe(false);
    expect(loadServeConfig({ flags: {}, env: { AIRTWIN_RTTY: 'false' } }).rtty).toBe(false);
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-cfg-'));
    writeFileSync(join(dir, 'c.yaml'), 'rtty: false\n');
    expect(loadServeConfig({ flags: {}, env: {}, configFile: join(dir, 'c.yaml') }).rtty).toBe(false);
    expect(() => loadServeConfig({ flags: {}, env: { AIRTWIN_RTTY: 'maybe' } })).toThrow(/--rtty/);
  });

  it('takes AIRTWIN_NO_<FLAG> for every --no-* flag, as the flag does', () => {
    expect(loadServeConfig({ flags: {}, env: { AIRTWIN_NO_SIM: 'true' } }).sim).toBe(false);
    expect(loadServeConfig({ flags: {}, env: { AIRTWIN_NO_SIM: '0' } }).sim).toBe(true);
    expect(loadServeConfig({ flags: {}, env: { AIRTWIN_NO_RTTY: '1' } }).rtty).toBe(false);
    expect(loadServeConfig({ flags: {}, env: { AIRTWIN_NO_AUTO_PROVISION: 'true' } }).autoProvision).toBe(false);
    expect(() => loadServeConfig({ flags: {}, env: { AIRTWIN_NO_SIM: 'yes' } })).toThrow(/--sim/);
    expect(() => loadServeConfig({ flags: {}, env: { AIRTWIN_NO_HOST: 'true' } })).toThrow(/AIRTWIN_NO_HOST: unknown setting/);
  });

  it('counts a static token without its :role and names a token that is too short', () => {
    expect(loadServeConfig({ flags: { apiTokens: ['abcdefgh:admin'] }, env: {} }).apiTokens).toEqual(['abcdefgh:admin']);
    // Eight characters with the role, four without: refused.
    expect(() => loadServeConfig({ flags: { apiTokens: ['abcd:adm'] }, env: {} })).toThrow(/--api-tokens: token "abcd" has 4 characters; a token needs at least 8/);
    expect(() => loadServeConfig({ flags: {}, env: { AIRTWIN_API_TOKENS: 'abcdefgh:' } })).toThrow(/no role/);
  });

  it('rejects unknown env settings and unreadable config files', () => {
    expect(() => loadServeConfig({ flags: {}, env: { AIRTWIN_COLOUR: 'red' } })).toThrow(/AIRTWIN_COLOUR/);
    expect(() => loadServeConfig({ flags: {}, env: {}, configFile: '/nonexistent/c.yaml' })).toThrow(/--config/);
  });

  it('refuses replay and recording settings without --replay / --record, instead of ignoring them', () => {
    expect(() => loadServeConfig({ flags: { keepTime: true }, env: {} })).toThrow('--keep-time: only with --replay');
    expect(() => loadServeConfig({ flags: { recordMaxBytes: '1000000' }, env: {} })).toThrow('--record-max-bytes: only with --record');
    expect(() => loadServeConfig({ flags: {}, env: { AIRTWIN_KEEP_TIME: 'true' } })).toThrow('--keep-time: only with --replay');
    expect(loadServeConfig({ flags: { keepTime: true, replay: 'r.ndjson' }, env: {} }).keepTime).toBe(true);
    expect(loadServeConfig({ flags: { recordMaxBytes: '1000000', record: 'r.ndjson' }, env: {} }).recordMaxBytes).toBe(1_000_000);
  });

  it('takes --warm-up in seconds from a flag, AIRTWIN_WARM_UP or the file, only with the simulated venue', () => {
    expect(loadServeConfig({ flags: {}, env: {} }).warmUp).toBeUndefined(); // the scenario's then
    expect(loadServeConfig({ flags: { warmUp: '600' }, env: {} }).warmUp).toBe(600);
    expect(loadServeConfig({ flags: {}, env: { AIRTWIN_WARM_UP: '0' } }).warmUp).toBe(0);
    expect(() => loadServeConfig({ flags: { warmUp: '5m' }, env: {} })).toThrow(/--warm-up/);
    expect(() => loadServeConfig({ flags: { warmUp: '-1' }, env: {} })).toThrow(/--warm-up/);
    expect(() => loadServeConfig({ flags: { warmUp: '300', sim: false }, env: {} })).toThrow('--warm-up: only with the simulated venue alone (not with --no-sim); 0 turns it off');
    expect(() => loadServeConfig({ flags: { replay: 'r.ndjson' }, env: { AIRTWIN_WARM_UP: '60' } })).toThrow('--warm-up: only with the simulated venue alone (not with --replay); 0 turns it off');
    expect(() => loadServeConfig({ flags: { warmUp: '60', nats: 'nats://127.0.0.1:4222' }, env: {} })).toThrow('--warm-up: only with the simulated venue alone (not with --nats); 0 turns it off');
    expect(loadServeConfig({ flags: { warmUp: '0', sim: false }, env: {} }).warmUp).toBe(0);
  });

  it('checks --speed and --record-max-bytes with the same rules and words as simulate, edge and replay', () => {
    for (const bad of ['-2', '0', 'fast', '', '1e999']) {
      let serve: unknown;
      try {
        loadServeConfig({ flags: { speed: bad }, env: {} });
      } catch (e) {
        serve = (e as Error).message;
      }
      expect(serve).toBe(`--speed: ${bad} is not a positive number or max`);
      expect(() => parseSpeed(bad)).toThrow(serve as string);
    }
    expect(loadServeConfig({ flags: { speed: '0.5' }, env: {} }).speed).toBe(0.5);
    expect(loadServeConfig({ flags: { speed: '1e2' }, env: {} }).speed).toBe(100);
    // Past a million a scaled clock leaves the dates a store holds (1e308 reached Infinity).
    expect(loadServeConfig({ flags: { speed: '1e6' }, env: {} }).speed).toBe(1_000_000);
    for (const big of ['1000001', '1e308']) {
      expect(() => loadServeConfig({ flags: { speed: big }, env: {} })).toThrow(`--speed: ${big} is more than 1000000; use max to go as fast as it can`);
      expect(() => parseSpeed(big)).toThrow(`--speed: ${big} is more than 1000000; use max to go as fast as it can`);
    }
    for (const bad of ['100', '4095', '-5000', '5000.5', 'big']) {
      const message = `--record-max-bytes: ${bad} is not a whole number of bytes >= 4096`;
      expect(() => loadServeConfig({ flags: { recordMaxBytes: bad, record: 'r.ndjson' }, env: {} })).toThrow(message);
      expect(() => parseRecordMaxBytes(bad)).toThrow(message);
    }
    expect(parseRecordMaxBytes('4096')).toBe(4096);
    expect(parseRecordMaxBytes(undefined)).toBeUndefined();
  });
});

describe('checkRecordFile', () => {
  it('cuts only a regular file (or one not made yet) into parts; any writable file records whole', () => {
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-record-file-'));
    const file = join(dir, 'r.ndjson');
    expect(() => checkRecordFile(file, 4096)).not.toThrow();
    writeFileSync(file, '');
    expect(() => checkRecordFile(file, 4096)).not.toThrow();
    expect(() => checkRecordFile('/dev/null', undefined)).not.toThrow();
    expect(() => checkRecordFile('/dev/null', 4096)).toThrow(new ConfigError('--record-max-bytes: /dev/null is not a regular file (a terminal, pipe or device cannot be cut into parts)'));
    expect(() => checkRecordFile(dir, undefined)).toThrow(`--record: ${dir} is a folder`);
  });
});

describe('checkDataDir', () => {
  it('accepts a writable folder, or a path whose nearest existing folder is one, and creates nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-datadir-'));
    expect(() => checkDataDir(dir)).not.toThrow();
    expect(() => checkDataDir(join(dir, 'a', 'b', 'c'))).not.toThrow();
    expect(existsSync(join(dir, 'a'))).toBe(false);
  });

  it('says why a path cannot hold the store, in the words of a failed open', () => {
    const dir = mkdtempSync(join(tmpdir(), 'airtwin-datadir-'));
    const file = join(dir, 'file');
    writeFileSync(file, 'x');
    expect(() => checkDataDir(file)).toThrow(new ConfigError(`--data-dir: ${file} is not usable (ENOTDIR)`));
    expect(() => checkDataDir(join(file, 'x'))).toThrow(new ConfigError(`--data-dir: ${join(file, 'x')} is not usable (ENOTDIR)`));
  });
});
