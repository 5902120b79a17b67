/**
 * Turns a plan into what must change (docs/upstream.md#how-rrm-applies-results,
 * #the-configuration-document), purely:
 * (a) the AP-layer `autoChannels` / `autoTxPowers` to store, keeping bands this run did not
 *     compute (upstream replaced the map, docs/rrm.md);
 * (b) per device, the new configuration document, identical to the current one except the
 *     radios' `channel` / `tx-power`, for devices whose radios really change (no churn).
 * Values = auto (after this run) overlaid by user values, only when `enableRRM`; no document for a
 * device with `enableConfig` false or without a known configuration. The command service stamps the
 * new uuid (the gateway ignores the body's, docs/upstream.md#configuration-reconciliation);
 * debouncing is the caller's (it is about time).
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
  /** serial -> why a device with new values gets no configure (a device already at them is not listed). */
  notPushed: Record<string, string>;
}

export const NOT_PUSHED = {
  rrmOff: 'enableRRM is off for this AP: the new values are in its layers only',
  configOff: 'enableConfig is off for this AP: the new values are in its layers only',
  noConfiguration: 'no configuration of this AP is known to put the new values in (it has not connected with one): they are in its layers only',
  noRadios: 'the configuration known for this AP has no radios to set: the new values are in its layers only',
} as const;

/**
 * Band -> value the device should run: auto overlaid by user (ConfigManager,
 * docs/upstream.md#how-rrm-applies-results).
 */
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
  const notPushed: Record<string, string> = {};
  for (const [serial, bands] of Object.entries(input.plan)) {
    const cfg = input.configs.get(serial);
    if (!cfg || Object.keys(bands).length === 0) continue;
    const auto = { ...(cfg[field] ?? {}), ...bands };
    autoUpdates[serial] = auto;
    if (!cfg.enableRRM || !cfg.enableConfig) {
      notPushed[serial] = cfg.enableRRM ? NOT_PUSHED.configOff : NOT_PUSHED.rrmOff;
      continue;
    }
    const current = input.current.get(serial);
    if (!current || !Array.isArray(current.radios)) {
      notPushed[serial] = current ? NOT_PUSHED.noRadios : NOT_PUSHED.noConfiguration;
      continue;
    }
    const next = withRadioValues(current, input.kind, targetValues({ ...cfg, [field]: auto }, input.kind));
    if (next) commands.set(serial, next);
  }
  return { autoUpdates, field, commands, notPushed };
}
