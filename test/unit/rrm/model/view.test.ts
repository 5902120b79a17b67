import { describe, expect, it } from 'vitest';
import { sharingZoneViews, zoneView } from '../../../../src/rrm/model/view.js';
import { genVenue, venueModel } from '../../../helpers/rrm-models.js';

const v = genVenue(5, { aps: 5, unmanaged: 2, side: 30 });
const serials = v.aps.map((a) => a.serial);

describe('sharingZoneViews', () => {
  it('builds one view per model and zone inside, equal to a fresh one', () => {
    const model = venueModel(v);
    const [a, b, part, other] = sharingZoneViews(() => [
      zoneView(model, serials), zoneView(model, [...serials]), zoneView(model, serials.slice(1)), zoneView(venueModel(v), serials),
    ]);
    expect(b).toBe(a);
    expect(part).not.toBe(a);
    expect(other).not.toBe(a);
    expect(a).toEqual(zoneView(model, serials));
    expect(part).toEqual(zoneView(model, serials.slice(1)));
  });

  it('builds a new view outside, and after the scope ends', () => {
    const model = venueModel(v);
    const inside = sharingZoneViews(() => zoneView(model, serials));
    expect(zoneView(model, serials)).not.toBe(inside);
    expect(zoneView(model, serials)).not.toBe(zoneView(model, serials));
  });
});
