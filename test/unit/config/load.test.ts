import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadServeConfig } from '../../../src/config/load.js';

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
    [{ rttyPort: '0' }, /--rtty-port/],
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

  it('rejects unknown env settings and unreadable config files', () => {
    expect(() => loadServeConfig({ flags: {}, env: { AIRTWIN_COLOUR: 'red' } })).toThrow(/AIRTWIN_COLOUR/);
    expect(() => loadServeConfig({ flags: {}, env: {}, configFile: '/nonexistent/c.yaml' })).toThrow(/--config/);
  });
});
