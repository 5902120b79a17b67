/**
 * The RRM data model (docs/upstream.md#rrm-data-model): per device, the last scans, the last
 * states, the radio configuration list and the capabilities phys. This is exactly what GET
 * currentModel returns. Documents come from APs (any link) and may miss fields, so the algorithms
 * read them through `view.ts`, which never assumes a field is present.
 */
import type { PhyCapabilities } from '../../protocol/capabilities.js';
import type { StateDocument } from '../../protocol/state.js';
import type { WifiScanEntry } from '../../protocol/wifiscan.js';

/** A scan entry as stored: the AP's entry plus the time of the scan (ms). */
/**
 * A scan entry as stored: the AP's entry plus the time of the scan (ms), and `he_oper`, the HE
 * Operation element the AP reported in `ies[]` (base64 body): a 6 GHz BSS has no HT/VHT
 * operation, so its width is read from there (upstream RRM has no 6 GHz and no such field).
 */
export type ModelScanEntry = WifiScanEntry & { unixTimeMs?: number; he_oper?: string };

/** A state as stored, stamped with the time it was recorded (ms). */
export type ModelState = StateDocument & { timestamp?: number };

/**
 * One `radios[]` entry of the uCentral configuration document
 * (docs/upstream.md#the-configuration-document).
 */
export interface RadioConfig {
  band?: string;
  channel?: number | string;
  'channel-width'?: number;
  'tx-power'?: number;
  [key: string]: unknown;
}

export interface RrmModel {
  /** serial -> scans, oldest first; each scan is the list of its entries. */
  latestWifiScans: Record<string, ModelScanEntry[][]>;
  /** serial -> states, oldest first. */
  latestStates: Record<string, ModelState[]>;
  /** serial -> radio configuration list (active configuration, else derived from the state). */
  latestDeviceStatusRadios: Record<string, RadioConfig[]>;
  /** serial -> phy path -> capabilities of that phy. */
  latestDeviceCapabilitiesPhy: Record<string, Record<string, PhyCapabilities>>;
}

export const emptyModel = (): RrmModel => ({
  latestWifiScans: {}, latestStates: {}, latestDeviceStatusRadios: {}, latestDeviceCapabilitiesPhy: {},
});

/** Buffer sizes of the model (docs/upstream.md#rrm-data-collection). */
export const MODEL_BUFFER_SIZE = 10;
