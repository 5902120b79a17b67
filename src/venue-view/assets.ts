/**
 * The page and the libraries it imports, served as files (no token: they hold no data, as
 * /docs). The page is plain ES modules from web/venue-view; the libraries are the ES module
 * builds inside their npm packages, named here one by one (nothing else under node_modules is
 * reachable), and the page finds them through its import map. Read once at start: the whole
 * set is a few hundred kB.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/** URL name under /venue/vendor/ -> [package, file inside it]. Keep in step with the import map of index.html. */
const VENDOR: Readonly<Record<string, readonly [string, string]>> = {
  'preact.mjs': ['preact', 'dist/preact.mjs'],
  'preact-hooks.mjs': ['preact', 'hooks/dist/hooks.mjs'],
  'htm.mjs': ['htm', 'dist/htm.module.js'],
  'uplot.mjs': ['uplot', 'dist/uPlot.esm.js'],
  'uplot.css': ['uplot', 'dist/uPlot.min.css'],
  'd3-force.mjs': ['d3-force', 'dist/d3-force.mjs'],
  'd3-dispatch.mjs': ['d3-dispatch', 'dist/d3-dispatch.mjs'],
  'd3-quadtree.mjs': ['d3-quadtree', 'dist/d3-quadtree.mjs'],
  'd3-timer.mjs': ['d3-timer', 'dist/d3-timer.mjs'],
  'd3-scale-chromatic.mjs': ['d3-scale-chromatic', 'dist/d3-scale-chromatic.mjs'],
  'd3-interpolate.mjs': ['d3-interpolate', 'dist/d3-interpolate.mjs'],
  'd3-color.mjs': ['d3-color', 'dist/d3-color.mjs'],
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml', '.png': 'image/png',
};

export const PAGE_DIR = fileURLToPath(new URL('../../web/venue-view/', import.meta.url));

/** The folder of an installed package: up from its entry point to the package.json that names it. */
function packageDir(name: string): string {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve(name));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === name) return dir;
    } catch {
      // no package.json at this level
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`package ${name} not found from ${require.resolve(name)}`);
    dir = up;
  }
}

interface Asset { body: Buffer; type: string }

/** Every file the page may load, by URL path. Throws at start when one is missing (a broken install). */
export function loadAssets(): Map<string, Asset> {
  const out = new Map<string, Asset>();
  for (const name of readdirSync(PAGE_DIR)) {
    const path = join(PAGE_DIR, name);
    const type = TYPES[extname(name)];
    if (type && statSync(path).isFile()) out.set(`/venue/${name}`, { body: readFileSync(path), type });
  }
  for (const [name, [pkg, file]] of Object.entries(VENDOR)) {
    out.set(`/venue/vendor/${name}`, { body: readFileSync(join(packageDir(pkg), file)), type: TYPES[extname(name)]! });
  }
  return out;
}

/** GET / (the page) and GET /venue/<file>, on the service's root (no /api/v1, no token). */
export async function assetRoutes(app: FastifyInstance): Promise<void> {
  const assets = loadAssets();
  const page = assets.get('/venue/index.html')!;
  app.get('/', { schema: { hide: true } }, async (_req, reply) => reply.type(page.type).header('cache-control', 'no-cache').send(page.body));
  app.get<{ Params: { '*': string } }>('/venue/*', { schema: { hide: true } }, async (req, reply) => {
    const asset = assets.get(`/venue/${req.params['*']}`);
    if (!asset) return reply.callNotFound();
    return reply.type(asset.type).header('cache-control', 'no-cache').send(asset.body);
  });
}
