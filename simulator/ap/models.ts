/**
 * Capabilities documents for a few real AP models, shaped like the gateway's captures
 * (docs/upstream.md#capabilities; GW `capabilities/*.json`): phy paths, bands, htmode
 * lists, antenna masks and ht/vht capability words of each model as the real device reports
 * them. Channel lists are the model's hardware channels narrowed to the venue's country, as
 * current firmware reports only enabled channels; `dfs_channels` marks the radar ones.
 * `airtwin_tri6e` is synthetic (no capture has a 6 GHz radio): an EAP101-like board plus a 6G phy.
 */
import type { Capabilities, PhyCapabilities } from '../../src/protocol/capabilities.js';
import { ALL_CHANNELS, channelToFrequency, channelsFor, isDfsChannel, type Band } from '../../src/protocol/wifi-channels.js';

interface PhySpec {
  path: string;
  band: Band;
  /** Hardware channels before regulatory narrowing. */
  channels: readonly number[];
  htmode: readonly string[];
  ant: number;
  ht_capa: number;
  vht_capa?: number;
  he_phy_capa?: readonly number[];
  he_mac_capa?: readonly number[];
}

interface ModelSpec { compatible: string; model: string; lan: string[]; wan: string[]; phys: readonly PhySpec[] }

const CH_2G_11 = ALL_CHANNELS['2G'].filter((c) => c <= 11);
const CH_2G_14 = ALL_CHANNELS['2G'];
const CH_5G = ALL_CHANNELS['5G'].filter((c) => c <= 165);
const HE_5G = ['HT20', 'HT40', 'VHT20', 'VHT40', 'VHT80', 'HE20', 'HE40', 'HE80', 'HE160', 'HE80+80'];
const HE_2G = ['HT20', 'HT40', 'VHT20', 'VHT40', 'VHT80', 'HE20', 'HE40'];
const VHT = ['HT20', 'HT40', 'VHT20', 'VHT40', 'VHT80'];

const MODELS: Readonly<Record<string, ModelSpec>> = {
  edgecore_eap101: {
    compatible: 'edgecore_eap101', model: 'EdgeCore EAP101', lan: ['eth1', 'eth2'], wan: ['eth0'],
    phys: [
      { path: 'platform/soc/c000000.wifi', band: '5G', channels: CH_5G, htmode: HE_5G, ant: 3, ht_capa: 6639, vht_capa: 1939470770, he_phy_capa: [7168, 19568, 8072, -31807, 260, 44], he_mac_capa: [13, -26104, 4160] },
      { path: 'platform/soc/c000000.wifi+1', band: '2G', channels: CH_2G_11, htmode: HE_2G, ant: 3, ht_capa: 6639, vht_capa: 1939437970, he_phy_capa: [512, 3184, 8072, -31807, 260, 44], he_mac_capa: [13, -26104, 4160] },
    ],
  },
  edgecore_eap102: {
    compatible: 'edgecore_eap102', model: 'Edgecore EAP102', lan: ['eth1'], wan: ['eth0'],
    phys: [
      { path: 'platform/soc/c000000.wifi1', band: '5G', channels: CH_5G, htmode: HE_5G.slice(0, 8), ant: 240, ht_capa: 6639, vht_capa: 1939601842, he_phy_capa: [1024, 19552, 32648, -31781, 412, 12], he_mac_capa: [13, -26088, 4160] },
      { path: 'platform/soc/c000000.wifi1+1', band: '2G', channels: CH_2G_11, htmode: HE_2G, ant: 3, ht_capa: 6639, vht_capa: 1939437970, he_phy_capa: [512, 19552, 32648, -31807, 412, 12], he_mac_capa: [13, -26088, 4160] },
    ],
  },
  edgecore_ecw5410: {
    compatible: 'edgecore_ecw5410', model: 'Edgecore ECW5410', lan: ['eth1'], wan: ['eth0'],
    phys: [
      { path: 'soc/1b700000.pci/pci0001:00/0001:00:00.0/0001:01:00.0', band: '5G', channels: CH_5G, htmode: [...VHT, 'VHT80+80', 'VHT160'], ant: 15, ht_capa: 6639, vht_capa: 865827322 },
      { path: 'soc/1b900000.pci/pci0002:00/0002:00:00.0/0002:01:00.0', band: '2G', channels: CH_2G_14, htmode: VHT, ant: 15, ht_capa: 6639, vht_capa: 865827250 },
    ],
  },
  linksys_ea8300: {
    compatible: 'linksys_ea8300', model: 'Linksys EA8300 (Dallas)', lan: ['eth0'], wan: ['eth1'],
    phys: [
      { path: 'platform/soc/a000000.wifi', band: '2G', channels: CH_2G_11, htmode: VHT, ant: 3, ht_capa: 6639, vht_capa: 865687986 },
      { path: 'platform/soc/a800000.wifi', band: '5G', channels: CH_5G.filter((c) => c <= 64), htmode: VHT, ant: 3, ht_capa: 6639, vht_capa: 865687986 },
      { path: 'soc/40000000.pci/pci0000:00/0000:00:00.0/0000:01:00.0', band: '5G', channels: CH_5G.filter((c) => c >= 100), htmode: VHT, ant: 3, ht_capa: 6639, vht_capa: 865696178 },
    ],
  },
  airtwin_tri6e: {
    compatible: 'airtwin_tri6e', model: 'airtwin synthetic tri-band 6E', lan: ['eth1'], wan: ['eth0'],
    phys: [
      { path: 'platform/soc/c000000.wifi', band: '5G', channels: CH_5G, htmode: HE_5G, ant: 3, ht_capa: 6639, vht_capa: 1939470770, he_phy_capa: [7168, 19568, 8072, -31807, 260, 44], he_mac_capa: [13, -26104, 4160] },
      { path: 'platform/soc/c000000.wifi+1', band: '2G', channels: CH_2G_11, htmode: HE_2G, ant: 3, ht_capa: 6639, vht_capa: 1939437970, he_phy_capa: [512, 3184, 8072, -31807, 260, 44], he_mac_capa: [13, -26104, 4160] },
      { path: 'platform/soc/c000000.wifi+2', band: '6G', channels: ALL_CHANNELS['6G'], htmode: ['HE20', 'HE40', 'HE80', 'HE160'], ant: 3, ht_capa: 0, he_phy_capa: [7168, 19568, 8072, -31807, 260, 44], he_mac_capa: [13, -26104, 4160] },
    ],
  },
};

export const MODEL_NAMES: readonly string[] = Object.keys(MODELS);

export function isKnownModel(name: string): boolean {
  return Object.hasOwn(MODELS, name);
}

/** The phys of a model: path, band, hardware channels, max width from htmode. */
export interface ModelPhy { path: string; band: Band; channels: readonly number[]; maxWidth: 20 | 40 | 80 | 160; antennas: number }

const physCache = new Map<string, ModelPhy[]>();
const wifiCache = new Map<string, Record<string, PhyCapabilities>>();

/**
 * The phys of a model in a country. One shared (read-only) answer per model and country: a
 * venue of 50,000 APs of one model would otherwise hold 50,000 copies of the same lists.
 */
export function modelPhys(name: string, country: string): ModelPhy[] {
  const key = `${name}/${country}`;
  let phys = physCache.get(key);
  if (!phys) physCache.set(key, (phys = buildModelPhys(name, country)));
  return phys;
}

function buildModelPhys(name: string, country: string): ModelPhy[] {
  const spec = MODELS[name];
  if (!spec) throw new RangeError(`unknown AP model ${name}`);
  return spec.phys.map((p) => ({
    path: p.path,
    band: p.band,
    channels: p.channels.filter((c) => channelsFor(country, p.band).includes(c)),
    maxWidth: p.htmode.some((m) => m.endsWith('160')) ? 160 : p.htmode.some((m) => m.endsWith('80')) ? 80 : p.htmode.some((m) => m.endsWith('40')) ? 40 : 20,
    antennas: popcount(p.ant),
  }));
}

function popcount(n: number): number {
  let c = 0;
  for (let v = n; v > 0; v >>= 1) c += v & 1;
  return c;
}

/** The `capabilities` object the AP sends in `connect`. */
export function capabilitiesDocument(name: string, country: string, serial: string): Capabilities {
  const spec = MODELS[name];
  if (!spec) throw new RangeError(`unknown AP model ${name}`);
  const mac = serial.match(/../g)!.join(':');
  return {
    compatible: spec.compatible,
    model: spec.model,
    platform: 'ap',
    network: { lan: [...spec.lan], wan: [...spec.wan] },
    country,
    compress_cmd: true,
    label_macaddr: mac,
    wifi: modelWifi(name, spec, country),
  };
}

/**
 * The `wifi` part of the capabilities: it depends on model and country only, so every AP of a
 * model shares one (read-only) object instead of carrying its own copy of the channel lists.
 */
function modelWifi(name: string, spec: ModelSpec, country: string): Record<string, PhyCapabilities> {
  const key = `${name}/${country}`;
  const known = wifiCache.get(key);
  if (known) return known;
  const wifi: Record<string, PhyCapabilities> = {};
  for (const p of spec.phys) {
    const channels = p.channels.filter((c) => channelsFor(country, p.band).includes(c));
    const phy: PhyCapabilities = {
      band: [p.band],
      channels,
      frequencies: channels.map((c) => channelToFrequency(p.band, c)!),
      htmode: [...p.htmode],
      ht_capa: p.ht_capa,
      rx_ant: p.ant,
      tx_ant: p.ant,
    };
    const dfs = channels.filter((c) => isDfsChannel(p.band, c));
    if (dfs.length > 0) phy.dfs_channels = dfs;
    if (p.vht_capa !== undefined) phy.vht_capa = p.vht_capa;
    if (p.he_phy_capa) phy.he_phy_capa = [...p.he_phy_capa];
    if (p.he_mac_capa) phy.he_mac_capa = [...p.he_mac_capa];
    wifi[p.path] = phy;
  }
  wifiCache.set(key, wifi);
  return wifi;
}
