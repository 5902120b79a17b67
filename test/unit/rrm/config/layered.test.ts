import { describe, expect, it } from 'vitest';
import {
  effectiveConfig, getDeviceConfig, modifyApLayer, parseDeviceConfig, sanitizeLayers, setApLayer,
  setNetworkLayer, setZoneLayer, writeAutoValues, zoneDeviceConfigs, zoneEffectiveConfig,
} from '../../../../src/rrm/config/layered.js';
import { emptyLayeredConfig, type LayeredConfig } from '../../../../src/rrm/schemas/layered-config.js';
import { DEVICE_CONFIG_FIELDS } from '../../../../src/rrm/schemas/device-config.js';
import { AirtwinError } from '../../../../src/errors.js';

const ALGOS = ['OptimizeChannel', 'OptimizeTxPower'];
const topo = { A: ['aaaaaaaaaaa1'], B: ['bbbbbbbbbbb1'] };

function codeOf(fn: () => unknown): { code: string; status: number; details: string; message: string } {
  try { fn(); } catch (e) {
    if (e instanceof AirtwinError) return { code: e.code, status: e.status, details: e.details, message: e.message };
    throw e;
  }
  throw new Error('expected an error');
}

describe('layered config: effective configuration', () => {
  it('applies defaults, then network, then zone, then AP layer (the example of upstream DeviceDataManagerTest)', () => {
    const layers: LayeredConfig = {
      networkConfig: { enableRRM: false },
      zoneConfig: { A: { enableRRM: true } },
      apConfig: { aaaaaaaaaaa1: { allowedChannels: { '2G': [6, 7] } }, bbbbbbbbbbb1: { allowedChannels: { '2G': [1, 2, 3] } } },
    };
    const a = effectiveConfig(layers, topo, 'aaaaaaaaaaa1')!;
    const b = effectiveConfig(layers, topo, 'bbbbbbbbbbb1')!;
    expect(a.enableRRM).toBe(true);
    expect(b.enableRRM).toBe(false);
    expect(a.allowedChannels?.['2G']).toHaveLength(2);
    expect(b.allowedChannels?.['2G']).toHaveLength(3);
    expect(effectiveConfig(layers, topo, 'cccccccccccc')).toBeNull();
  });

  it('has every field present, null where no layer sets it', () => {
    const cfg = effectiveConfig(emptyLayeredConfig(), topo, 'aaaaaaaaaaa1')!;
    expect(Object.keys(cfg).sort()).toEqual([...DEVICE_CONFIG_FIELDS].sort());
    expect(cfg).toMatchObject({ enableRRM: true, enableConfig: true, enableWifiScan: true, schedule: null, autoChannels: null });
  });

  it('replaces maps whole instead of merging them per band', () => {
    const layers: LayeredConfig = {
      networkConfig: { userChannels: { '2G': 1, '5G': 36 } }, zoneConfig: { A: { userChannels: { '5G': 149 } } }, apConfig: {},
    };
    expect(effectiveConfig(layers, topo, 'aaaaaaaaaaa1')!.userChannels).toEqual({ '5G': 149 });
  });

  it('returns copies that do not alias the stored layers', () => {
    const layers: LayeredConfig = { networkConfig: { allowedChannels: { '2G': [1] } }, zoneConfig: {}, apConfig: {} };
    effectiveConfig(layers, topo, 'aaaaaaaaaaa1')!.allowedChannels!['2G']!.push(99);
    expect(layers.networkConfig.allowedChannels!['2G']).toEqual([1]);
  });

  it('zone config leaves out the AP layer; zoneDeviceConfigs covers every member', () => {
    const layers: LayeredConfig = { networkConfig: {}, zoneConfig: { A: { boundary: 50 } }, apConfig: { aaaaaaaaaaa1: { boundary: 70 } } };
    expect(zoneEffectiveConfig(layers, 'A').boundary).toBe(50);
    expect(zoneDeviceConfigs(layers, topo, 'A').get('aaaaaaaaaaa1')!.boundary).toBe(70);
    expect(codeOf(() => zoneDeviceConfigs(layers, topo, 'nope')).status).toBe(404);
  });

  it('getDeviceConfig: blank serial is 400, unknown serial is 404, lookup is case-insensitive', () => {
    expect(codeOf(() => getDeviceConfig(emptyLayeredConfig(), topo, ' ')).status).toBe(400);
    expect(codeOf(() => getDeviceConfig(emptyLayeredConfig(), topo, 'cccccccccccc')).status).toBe(404);
    expect(getDeviceConfig(emptyLayeredConfig(), topo, 'AAAAAAAAAAA1').enableRRM).toBe(true);
  });
});

describe('layered config: setters', () => {
  it('set network layer replaces it; null resets to {}', () => {
    let l = setNetworkLayer(emptyLayeredConfig(), topo, { enableRRM: false, boundary: 5 });
    l = setNetworkLayer(l, topo, { boundary: 9 });
    expect(l.networkConfig).toEqual({ boundary: 9 });
    expect(setNetworkLayer(l, topo, null).networkConfig).toEqual({});
  });

  it('set zone layer replaces it, null deletes it, blank zone is 400 and unknown zone 404', () => {
    let l = setZoneLayer(emptyLayeredConfig(), topo, 'A', { enableRRM: false, boundary: 5 });
    l = setZoneLayer(l, topo, 'A', { boundary: 9 });
    expect(l.zoneConfig.A).toEqual({ boundary: 9 });
    expect(setZoneLayer(l, topo, 'A', null).zoneConfig.A).toBeUndefined();
    expect(setZoneLayer(l, topo, 'A', {}).zoneConfig.A).toBeUndefined();
    expect(codeOf(() => setZoneLayer(l, topo, '', {})).message).toBe('Invalid zone');
    expect(codeOf(() => setZoneLayer(l, topo, 'Z', { boundary: 1 })).status).toBe(404);
  });

  it('set AP layer replaces it; modify merges: absent fields are kept, maps replaced whole (the example of upstream test_modifyDeviceApConfig)', () => {
    let l = setApLayer(emptyLayeredConfig(), topo, 'aaaaaaaaaaa1', { enableConfig: false, autoChannels: { '2G': 7, '5G': 165 } });
    l = modifyApLayer(l, topo, 'aaaaaaaaaaa1', { enableConfig: true, autoTxPowers: { '2G': 20, '5G': 28 } });
    expect(l.apConfig.aaaaaaaaaaa1).toEqual({ enableConfig: true, autoChannels: { '2G': 7, '5G': 165 }, autoTxPowers: { '2G': 20, '5G': 28 } });
    l = modifyApLayer(l, topo, 'aaaaaaaaaaa1', { autoChannels: { '5G': 36 } });
    expect(l.apConfig.aaaaaaaaaaa1!.autoChannels).toEqual({ '5G': 36 });
    l = setApLayer(l, topo, 'aaaaaaaaaaa1', { boundary: 3 });
    expect(l.apConfig.aaaaaaaaaaa1).toEqual({ boundary: 3 });
  });

  it('modify with no supported field is 400; unknown serial is 404', () => {
    const e = codeOf(() => modifyApLayer(emptyLayeredConfig(), topo, 'aaaaaaaaaaa1', {}));
    expect([e.status, e.message]).toEqual([400, 'No supported fields in request body']);
    expect(codeOf(() => modifyApLayer(emptyLayeredConfig(), topo, 'cccccccccccc', { boundary: 1 })).status).toBe(404);
    expect(codeOf(() => setApLayer(emptyLayeredConfig(), topo, 'cccccccccccc', { boundary: 1 })).status).toBe(404);
  });

  it('sanitize drops layers of zones and serials not in the topology and empty layers', () => {
    const l = sanitizeLayers({
      networkConfig: {}, zoneConfig: { A: { boundary: 1 }, Gone: { boundary: 2 }, B: {} },
      apConfig: { aaaaaaaaaaa1: { boundary: 3 }, ffffffffffff: { boundary: 4 } },
    }, topo);
    expect(l).toEqual({ networkConfig: {}, zoneConfig: { A: { boundary: 1 } }, apConfig: { aaaaaaaaaaa1: { boundary: 3 } } });
  });

  it('writeAutoValues keeps bands the run did not compute', () => {
    let l = setApLayer(emptyLayeredConfig(), topo, 'aaaaaaaaaaa1', { autoChannels: { '2G': 1, '5G': 36 } });
    l = writeAutoValues(l, topo, 'autoChannels', { aaaaaaaaaaa1: { '5G': 149 }, bbbbbbbbbbb1: { '2G': 6 } });
    expect(l.apConfig.aaaaaaaaaaa1!.autoChannels).toEqual({ '2G': 1, '5G': 149 });
    expect(l.apConfig.bbbbbbbbbbb1!.autoChannels).toEqual({ '2G': 6 });
  });
});

describe('layered config: parsing request bodies', () => {
  it('drops unknown keys and null values; null body means delete', () => {
    expect(parseDeviceConfig({ enableRRM: false, foo: 1, boundary: null }, ALGOS)).toEqual({ enableRRM: false });
    expect(parseDeviceConfig(null, ALGOS)).toBeNull();
  });

  it('rejects wrong types naming the field', () => {
    const e = codeOf(() => parseDeviceConfig({ enableRRM: 'yes' }, ALGOS));
    expect([e.status, e.details]).toEqual([400, 'enableRRM']);
    expect(codeOf(() => parseDeviceConfig({ allowedChannels: { '2G': [1, 'x'] } }, ALGOS)).details).toBe('allowedChannels.2G.1');
    expect(codeOf(() => parseDeviceConfig([1], ALGOS)).status).toBe(400);
  });

  it('rejects powers outside 0..30, empty allowed lists and bad locations', () => {
    expect(codeOf(() => parseDeviceConfig({ userTxPowers: { '5G': 31 } }, ALGOS)).details).toBe('userTxPowers.5G');
    expect(codeOf(() => parseDeviceConfig({ allowedTxPowers: { '5G': [] } }, ALGOS)).details).toBe('allowedTxPowers.5G');
    expect(codeOf(() => parseDeviceConfig({ location: [1] }, ALGOS)).details).toBe('location');
    expect(codeOf(() => parseDeviceConfig({ userChannels: { '5G': 0 } }, ALGOS)).details).toBe('userChannels.5G');
  });

  it('rejects an invalid cron and an unknown scheduled algorithm, accepts Quartz and Linux crons', () => {
    expect(codeOf(() => parseDeviceConfig({ schedule: { crons: ['61 * * * * *'] } }, ALGOS)).details).toBe('schedule.crons');
    expect(codeOf(() => parseDeviceConfig({ schedule: { cron: 'bogus' } }, ALGOS)).details).toBe('schedule.cron');
    expect(codeOf(() => parseDeviceConfig({ schedule: { crons: ['0 * * * *'], algorithms: [{ name: 'Nope' }] } }, ALGOS)).details)
      .toBe('schedule.algorithms[0].name');
    expect(parseDeviceConfig({ schedule: { crons: ['0 */10 * ? * *', '0 0 * * *', '0 0 12 ? * MON-FRI *'] } }, ALGOS)).toBeTruthy();
  });
});
