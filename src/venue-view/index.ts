/**
 * The venue view: a page on the gateway port showing the twin (floor plan or scan topology,
 * heat maps, the RRM panel, charts over time, live updates). `venueView(deps)` is one gateway
 * extension: the page's files on the root, its data routes and websocket under /api/v1 behind
 * the gateway's auth. docs/venue-view.md describes it.
 */
import type { GatewayExtension } from '../gateway/app.js';
import { assetRoutes } from './assets.js';
import { ApViews } from './ap-views.js';
import { clientPositions } from './floor-plan.js';
import { LiveFeed } from './live-feed.js';
import { liveRoute } from './live-ws.js';
import { venueRoutes } from './routes.js';
import type { VenueViewDeps } from './deps.js';

/** The path of the page; the banner prints it with `#token=`. */
export const VENUE_VIEW_PATH = '/';

export function venueView(deps: VenueViewDeps): GatewayExtension {
  return {
    root: assetRoutes,
    api: async (api) => {
      const views = new ApViews(deps.fleet, deps.devices);
      const venue = deps.venue;
      const feed = new LiveFeed({
        events$: deps.fleet.events$, clock: deps.clock, wall: deps.wall,
        serials: () => views.serials(), summary: (s) => views.summary(s),
        ...(venue ? { clients: () => clientPositions(venue) } : {}),
      });
      api.addHook('onClose', async () => {
        feed.close();
        views.close();
      });
      await venueRoutes(api, deps, views);
      await liveRoute(api, feed);
    },
  };
}
