import { describe, expect, it } from 'vitest';
import { NOT_PUSHED, applyPlan, withRadioValues } from '../../../src/rrm/apply-plan.js';
import { defaultEffectiveConfig } from '../../../src/rrm/config/layered.js';
import type { EffectiveConfig } from '../../../src/rrm/schemas/device-config.js';

const cfg = (patch: Partial<EffectiveConfig> = {}): EffectiveConfig => ({ ...defaultEffectiveConfig(), ...patch });
const device = () => ({
  uuid: 1, interfaces: [{ name: 'x' }],
  radios: [{ band: '2G', channel: 6, 'tx-power': 20 }, { band: '5G', channel: 'auto', 'tx-power': 23, 'channel-width': 80 }, { band: '6G' }],
});

describe('apply-plan', () => {
  it('changes only the radios channel, keeps everything else, and merges auto values per band', () => {
    const out = applyPlan({
      kind: 'channel', plan: { s1: { '5G': 149 } },
      configs: new Map([['s1', cfg({ autoChannels: { '2G': 11, '5G': 36 } })]]),
      current: new Map([['s1', device()]]),
    });
    expect(out.field).toBe('autoChannels');
    expect(out.autoUpdates).toEqual({ s1: { '2G': 11, '5G': 149 } });
    expect(out.commands.get('s1')).toEqual({
      uuid: 1, interfaces: [{ name: 'x' }],
      radios: [{ band: '2G', channel: 11, 'tx-power': 20 }, { band: '5G', channel: 149, 'tx-power': 23, 'channel-width': 80 }, { band: '6G' }],
    });
  });

  it('user values win over the plan', () => {
    const out = applyPlan({
      kind: 'txPower', plan: { s1: { '2G': 5, '5G': 7 } },
      configs: new Map([['s1', cfg({ userTxPowers: { '2G': 17 } })]]),
      current: new Map([['s1', device()]]),
    });
    expect(out.autoUpdates.s1).toEqual({ '2G': 5, '5G': 7 });
    expect((out.commands.get('s1')!.radios as { 'tx-power'?: number }[]).map((r) => r['tx-power'])).toEqual([17, 7, undefined]);
  });

  it('sends no command when nothing changes (no churn)', () => {
    const out = applyPlan({
      kind: 'txPower', plan: { s1: { '2G': 20, '5G': 23 } }, configs: new Map([['s1', cfg()]]), current: new Map([['s1', device()]]),
    });
    expect(out.commands.size).toBe(0);
    expect(out.autoUpdates.s1).toEqual({ '2G': 20, '5G': 23 });
    expect(out.notPushed).toEqual({});
  });

  it('honours enableRRM and enableConfig (auto values are still stored)', () => {
    const base = { kind: 'channel' as const, plan: { s1: { '2G': 1 } }, current: new Map([['s1', device()]]) };
    const rrmOff = applyPlan({ ...base, configs: new Map([['s1', cfg({ enableRRM: false })]]) });
    expect([rrmOff.commands.size, rrmOff.notPushed]).toEqual([0, { s1: NOT_PUSHED.rrmOff }]);
    const off = applyPlan({ ...base, configs: new Map([['s1', cfg({ enableConfig: false })]]) });
    expect([off.commands.size, off.autoUpdates.s1, off.notPushed]).toEqual([0, { '2G': 1 }, { s1: NOT_PUSHED.configOff }]);
  });

  it('ignores devices not in the configs and devices without a known configuration', () => {
    const out = applyPlan({ kind: 'channel', plan: { s1: { '2G': 1 }, s2: { '2G': 1 } }, configs: new Map([['s2', cfg()]]), current: new Map() });
    expect(out.autoUpdates).toEqual({ s2: { '2G': 1 } });
    expect(out.commands.size).toBe(0);
    expect(out.notPushed).toEqual({ s2: NOT_PUSHED.noConfiguration });
  });

  it('says why a known configuration without radios gets no command (a replayed or imported AP keeps only its uuid)', () => {
    const out = applyPlan({ kind: 'channel', plan: { s1: { '2G': 1 } }, configs: new Map([['s1', cfg()]]), current: new Map([['s1', { uuid: 5 }]]) });
    expect([out.commands.size, out.notPushed]).toEqual([0, { s1: NOT_PUSHED.noRadios }]);
  });

  it('does not mutate the current configuration; 5G-lower/upper radios are 5 GHz', () => {
    const current = { radios: [{ band: '5G-upper', channel: 100 }] };
    const next = withRadioValues(current, 'channel', { '5G': 149 });
    expect(next).toEqual({ radios: [{ band: '5G-upper', channel: 149 }] });
    expect(current.radios[0]!.channel).toBe(100);
    expect(withRadioValues({}, 'channel', { '5G': 149 })).toBeNull();
  });
});
