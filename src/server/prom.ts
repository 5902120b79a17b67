/**
 * Prometheus metrics with prom-client (docs/metrics.md): one registry per process part that
 * serves them, filled at scrape time from the counters the parts already keep, so nothing on a
 * hot path pays for a metric it does not update itself.
 */
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export { Registry };

/** A registry with the process metrics (CPU, memory, event loop lag, GC, handles). */
export function processRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

type Labels = Record<string, string>;

/**
 * A counter read from a running total at each scrape. `read` returns one total, or totals by
 * label values.
 */
export function counterFrom(registry: Registry, name: string, help: string, read: () => number | [Labels, number][], labelNames: string[] = []): void {
  new Counter({
    name, help, labelNames, registers: [registry],
    collect() {
      this.reset();
      const v = read();
      if (typeof v === 'number') this.inc(v);
      else for (const [labels, n] of v) this.inc(labels, n);
    },
  });
}

/** A gauge read at each scrape. */
export function gaugeFrom(registry: Registry, name: string, help: string, read: () => number | [Labels, number][], labelNames: string[] = []): void {
  new Gauge({
    name, help, labelNames, registers: [registry],
    collect() {
      this.reset();
      const v = read();
      if (typeof v === 'number') this.set(v);
      else for (const [labels, n] of v) this.set(labels, n);
    },
  });
}

/** Request durations of an HTTP service; `observe` installs it on one Fastify app. */
export class HttpMetrics {
  private readonly durations: Histogram<'service' | 'method' | 'route' | 'status_code'>;

  constructor(registry: Registry) {
    this.durations = new Histogram({
      name: 'airtwin_http_request_duration_seconds',
      help: 'HTTP requests by service, method, route template and status, and how long each took',
      labelNames: ['service', 'method', 'route', 'status_code'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
  }

  /**
   * Times every request of `app` from its arrival to the end of its answer. Routes registered
   * after this call are timed; the route label is the template (`/api/v1/device/:serial`), never
   * the URL, so the series stay few.
   */
  observe(app: FastifyInstance, service: string): void {
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      this.durations.observe({ service, method: request.method, route, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
      done();
    });
  }
}
