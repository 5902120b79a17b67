import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRestricted, restrictable, restrictionRefusal, restrictionsOf } from '../../../actors/device/restrictions.js';
import type { JsonObject } from '../../../src/protocol/frame.js';

const caps = (restrictions: unknown): JsonObject => ({ compatible: 'x', restrictions } as JsonObject);

describe('restrictions of a device (capabilities.restrictions)', () => {
  it('reads the flags, with anything that is not true as false, and the country list', () => {
    expect(restrictionsOf({ compatible: 'x' })).toBeUndefined();
    expect(restrictionsOf(undefined)).toBeUndefined();
    expect(restrictionsOf(caps('yes'))).toBeUndefined();
    expect(restrictionsOf(caps({ dfs: true, rtty: 'true', upgrade: 1, country: ['US', 3] }))).toEqual({
      dfs: true, ssh: false, rtty: false, tty: false, upgrade: false, commands: false, developer: false, country: ['US'],
    });
    expect(isRestricted(restrictionsOf(caps({ developer: true }))!)).toBe(false);
    expect(isRestricted(restrictionsOf(caps({ country: ['FR'] }))!)).toBe(true);
  });

  it('refuses rtty, a DFS-overriding scan, unsigned firmware and unsigned scripts, each only under its lock', () => {
    const r = restrictionsOf(caps({ rtty: true, dfs: true, upgrade: true }));
    expect(restrictionRefusal('rtty', {}, r)?.code).toBe('DEVICE_RESTRICTED');
    expect(restrictionRefusal('wifiscan', { override_dfs: true }, r)?.code).toBe('DEVICE_RESTRICTED');
    // A generic /command payload without override_dfs leaves the AP's default (no override).
    expect(restrictionRefusal('wifiscan', {}, r)).toBeUndefined();
    expect(restrictionRefusal('wifiscan', { override_dfs: false }, r)).toBeUndefined();
    expect(restrictionRefusal('upgrade', { uri: 'https://fw' }, r)?.code).toBe('SIGNATURE_REQUIRED');
    expect(restrictionRefusal('upgrade', { uri: 'https://fw', signature: 'c2ln' }, r)).toBeUndefined();
    expect(restrictionRefusal('script', { type: 'shell' }, r)?.code).toBe('SIGNATURE_REQUIRED');
    expect(restrictionRefusal('script', { type: 'shell', signature: 'c2ln' }, r)).toBeUndefined();
    // Each lock alone: rtty does not lock scans, dfs does not lock rtty.
    expect(restrictionRefusal('wifiscan', {}, restrictionsOf(caps({ rtty: true })))).toBeUndefined();
    expect(restrictionRefusal('rtty', {}, restrictionsOf(caps({ dfs: true })))).toBeUndefined();
    expect(restrictionRefusal('upgrade', {}, restrictionsOf(caps({ dfs: true })))).toBeUndefined();
  });

  const flags = fc.record({
    dfs: fc.boolean(), ssh: fc.boolean(), rtty: fc.boolean(), tty: fc.boolean(), upgrade: fc.boolean(), commands: fc.boolean(),
    country: fc.array(fc.constantFrom('US', 'FR', 'JP'), { maxLength: 2 }),
  });
  const method = fc.constantFrom('rtty', 'wifiscan', 'upgrade', 'script', 'reboot', 'configure', 'ping', 'leds', 'factory', 'trace');
  const params = fc.record({ override_dfs: fc.option(fc.boolean(), { nil: undefined }), signature: fc.option(fc.constantFrom('', 'c2ln'), { nil: undefined }) })
    .map((p) => Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as JsonObject);

  it('never refuses a developer device, a device without restrictions, or a command outside the four', () => {
    fc.assert(fc.property(flags, method, params, (f, m, p) => {
      expect(restrictionRefusal(m, p, restrictionsOf(caps({ ...f, developer: true })))).toBeUndefined();
      expect(restrictionRefusal(m, p, undefined)).toBeUndefined();
      if (!['rtty', 'wifiscan', 'upgrade', 'script'].includes(m)) expect(restrictionRefusal(m, p, restrictionsOf(caps(f)))).toBeUndefined();
    }));
  });

  it('calls a command restrictable whenever some restrictions refuse it (so skipping the lookup otherwise loses nothing)', () => {
    fc.assert(fc.property(flags, method, params, (f, m, p) => {
      if (restrictionRefusal(m, p, restrictionsOf(caps(f)))) expect(restrictable(m, p)).toBe(true);
    }));
    expect(restrictable('reboot', {})).toBe(false);
    expect(restrictable('wifiscan', { override_dfs: false })).toBe(false);
    expect(restrictable('upgrade', { signature: 'c2ln' })).toBe(false);
  });

  it('refuses exactly when the lock of the command is set and nothing lifts it', () => {
    fc.assert(fc.property(flags, method, params, (f, m, p) => {
      const r = restrictionsOf(caps(f))!;
      const signed = p.signature === 'c2ln';
      const expected = m === 'rtty' ? f.rtty
        : m === 'wifiscan' ? f.dfs && p.override_dfs === true
          : m === 'upgrade' ? f.upgrade && !signed
            : m === 'script' ? isRestricted(r) && !signed : false;
      expect(restrictionRefusal(m, p, r) !== undefined).toBe(expected);
    }));
  });
});
