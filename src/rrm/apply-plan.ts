/**
 * Turns a plan into what must change (reference §4.9, device-protocol §5.4), purely:
 * (a) the AP-layer `autoChannels` / `autoTxPowers` to store, keeping bands this run did not
 *     compute (upstream replaced the map, §8 #18);
 * (b) per device, the new configuration document, identical to the current one except the
 *     radios' `channel` / `tx-power`, for devices whose radios really change (no churn).
 * Values = auto (after this run) overlaid by user values, only when `enableRRM`; no document
 * for a device with `enableConfig` false or without a known configuration. The command service
 * stamps the new uuid (the gateway ignores the body's, device-protocol §5.3); debouncing is the
 * caller's (it is about time).
 */
import type { EffectiveConfig } from './schemas/device-config.js';
import type { PlanKind } from './algorithms/registry.js';
import type { Plan } from './algorithms/common.js';
import { configBand } from './model/band.js';

export interface DeviceConfiguration {
  radios?: unknown[];
  [key: string]: unknown;
}

export interface ApplyInput {
  kind: PlanKind;
  plan: Plan;
  /** Effective configs of the zone members, before this run. */
  configs: ReadonlyMap<string, EffectiveConfig>;
  /** serial -> the configuration the device runs now (absent = unknown: no command). */
  current: ReadonlyMap<string, DeviceConfiguration>;
}

export interface ApplyOutput {
  /** serial -> the full auto map to store in that AP's layer (field by kind). */
  autoUpdates: Record<string, Record<string, number>>;
  field: 'autoChannels' | 'autoTxPowers';
  /** serial -> new configuration document to push. */
  commands: Map<string, DeviceConfiguration>;
}

/** Band -> value the device should run: auto overlaid by user (ConfigManager, §4.9). */
export function targetValues(cfg: EffectiveConfig, kind: PlanKind): Record<string, number> {
  return kind === 'channel'
    ? { ...(cfg.autoChannels ?? {}), ...(cfg.userChannels ?? {}) }
    : { ...(cfg.autoTxPowers ?? {}), ...(cfg.userTxPowers ?? {}) };
}

/**
 * The configuration with the radios' channel or tx-power set from `values`; null when nothing
 * differs. A non-numeric current value such as "auto" counts as different.
 */
export function withRadioValues(config: DeviceConfiguration, kind: PlanKind, values: Record<string, number>): DeviceConfiguration | null {
  if (!Array.isArray(config.radios)) return null;
  const copy = structuredClone(config) as DeviceConfiguration & { radios: unknown[] };
  const key = kind === 'channel' ? 'channel' : 'tx-power';
  let changed = false;
  const radios = copy.radios.map((r) => {
    if (r === null || typeof r !== 'object') return r;
    const radio = r as Record<string, unknown>;
    const band = configBand(radio.band);
    const v = band === undefined ? undefined : values[band];
    if (v === undefined || radio[key] === v) return r;
    changed = true;
    return { ...radio, [key]: v };
  });
  return changed ? { ...copy, radios } : null;
}

export function applyPlan(input: ApplyInput): ApplyOutput {
  const field = input.kind === 'channel' ? 'autoChannels' : 'autoTxPowers';
  const autoUpdates: Record<string, Record<string, number>> = {};
  const commands = new Map<string, DeviceConfiguration>();
  for (const [serial, bands] of Object.entries(input.plan)) {
    const cfg = input.configs.get(serial);
    if (!cfg || Object.keys(bands).length === 0) continue;
    const auto = { ...(cfg[field] ?? {}), ...bands };
    autoUpdates[serial] = auto;
    if (!cfg.enableRRM || !cfg.enableConfig) continue;
    const current = input.current.get(serial);
    if (!current) continue;
    const next = withRadioValues(current, input.kind, targetValues({ ...cfg, [field]: auto }, input.kind));
    if (next) commands.set(serial, next);
  }
  return { autoUpdates, field, commands };
}
