/**
 * The APs the view shows (the gateway's device records) as it shows them: each one's summary
 * from the fleet, plus when its last state arrived, which the fleet's details do not keep.
 */
import type { Subscription } from 'rxjs';
import type { Fleet } from '../../actors/fleet.js';
import type { DevicesRepo } from '../store/devices-repo.js';
import { apSummary, type ApSummary } from './ap-summary.js';

export type ApView = ApSummary & { lastStateAt: number };

export class ApViews {
  private readonly lastStateAt = new Map<string, number>();
  private readonly subscription: Subscription;

  constructor(private readonly fleet: Fleet, private readonly devices: DevicesRepo) {
    this.subscription = fleet.events$.subscribe((e) => {
      if (e.type === 'state') this.lastStateAt.set(e.serial, e.at);
    });
  }

  serials(): string[] {
    return this.devices.all().map((d) => d.serialNumber);
  }

  summary(serial: string): ApView {
    const record = this.devices.get(serial);
    return { ...apSummary(serial, this.fleet.details(serial), record?.compatible || record?.manufacturer || ''), lastStateAt: this.lastStateAt.get(serial) ?? 0 };
  }

  /** BSSID -> the AP serving it, from every AP's last state. */
  servedBy(): Map<string, string> {
    const out = new Map<string, string>();
    for (const serial of this.serials()) for (const b of this.summary(serial).bssids) out.set(b, serial);
    return out;
  }

  close(): void {
    this.subscription.unsubscribe();
  }
}
