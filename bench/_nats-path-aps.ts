/**
 * Child process of bench/nats-path.ts: the edge and its websocket APs, apart from serve as in a
 * deployment. Messages from the parent: {url, aps, frames} to start, 'go' to send the state frames.
 * Answers 'ready' once the APs are connected and 'sent' with the edge's counters when all went up.
 */
import { stateFrame } from '../simulator/ap/frames.js';
import { VirtualClock } from '../simulator/clock.js';
import { loadScenario, scenarioStart } from '../simulator/scenario.js';
import { buildVenue } from '../simulator/venue.js';
import { createEdge } from '../src/links/edge/edge-server.js';
import { connectNats, silentLogger } from '../src/links/nats/connect.js';
import { WsApClient } from '../src/links/sim-ws-client.js';

export const serialOf = (i: number) => `b0a7000${i.toString(16).padStart(5, '0')}`;

/** Realistic state documents: the `hall` venue's frames, one per AP, serial swapped per client. */
export function stateTexts(n: number): string[] {
  const { scenario } = loadScenario('hall');
  const venue = buildVenue(scenario, new VirtualClock(scenarioStart(scenario)), scenario.seed);
  const templates = venue.aps.map((ap) => ({ serial: ap.serial, text: JSON.stringify(stateFrame(venue, ap)) }));
  return Array.from({ length: n }, (_, i) => {
    const t = templates[i % templates.length]!;
    return t.text.replaceAll(t.serial, serialOf(i));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

if (process.send) {
  process.once('message', async (m: { url: string; aps: number; frames: number }) => {
    const nc = await connectNats({ url: m.url, name: 'bench-edge', logger: silentLogger });
    const edge = await createEdge({ port: 0, host: '127.0.0.1', nats: nc, logger: silentLogger });
    const texts = stateTexts(m.aps);
    const clients = texts.map(() => new WsApClient({ url: `${edge.url}/` }));
    await Promise.all(clients.map((c) => c.opened));
    clients.forEach((c, i) => c.send({
      jsonrpc: '2.0', method: 'connect',
      params: { serial: serialOf(i), uuid: 1, firmware: 'bench', capabilities: { compatible: 'edgecore_eap101', platform: 'ap' } },
    }));
    process.send!('ready');
    process.once('message', async () => {
      for (let k = 0; k < m.frames; k++) {
        clients.forEach((c, i) => c.send(texts[i]!));
        if (k % 10 === 9) await sleep(0);
      }
      const total = m.aps * (m.frames + 1);
      for (let t = 0; t < 300_000 && edge.stats().framesUp < total; t += 10) await sleep(10);
      await nc.flush();
      process.send!({ sent: edge.stats() });
    });
  });
  process.on('disconnect', () => process.exit(0));
}
