import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wallClock } from '../../src/protocol/clock.js';
import { connectRttyClient, type RttyClient } from '../../src/rtty/client.js';
import { InternalRttyServer } from '../../src/rtty/server.js';
import { launchBrowser, newPage } from '../helpers/browser.js';

/**
 * The session page of the internal rtty server in headless Chromium: it logs in through its
 * websocket, sends what is typed as keys, and shows the device's answer.
 */

const SESSION = { id: 'd'.repeat(32), token: 'e'.repeat(32), serial: 'a0b1c2000001' };
let browser: Browser;
let server: InternalRttyServer;
let device: RttyClient;
let viewport: number;

beforeAll(async () => {
  server = new InternalRttyServer({ clock: wallClock, timeoutS: 600, maxSessions: 0, logger: { info: () => undefined, warn: () => undefined } });
  const ports = await server.listen(0, 0, '127.0.0.1');
  viewport = ports.viewport;
  server.open(SESSION);
  device = connectRttyClient({
    host: '127.0.0.1', port: ports.port, tls: false, devid: SESSION.id, token: SESSION.token, description: 'page test', clock: wallClock,
    openTerminal: (io) => {
      let line = '';
      io.write('$ ');
      return {
        input: (data) => {
          for (const ch of data.toString()) {
            io.write(ch);
            if (ch !== '\r') { line += ch; continue; }
            io.write(`\r\nanswer to ${line}\r\n$ `);
            line = '';
          }
        },
        close: () => undefined,
      };
    },
  });
  await device.registered;
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  device?.close();
  await server?.close();
});

describe('rtty session page', () => {
  it('logs in, sends keys and shows the terminal', async () => {
    const { page, errors } = await newPage(browser);
    await page.goto(`http://127.0.0.1:${viewport}/connect/${SESSION.id}`);
    const text = (id: string) => page.evaluate((el) => (globalThis as any).document.getElementById(el)?.textContent as string, id);
    await page.waitForFunction(() => (globalThis as any).document.getElementById('state')?.textContent === 'logged in');
    await page.waitForFunction(() => (globalThis as any).document.getElementById('out')?.textContent?.includes('$ '));
    await page.keyboard.type('status');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => (globalThis as any).document.getElementById('out')?.textContent?.includes('answer to status'));
    expect(await text('out')).toContain('status\nanswer to status');
    expect(await page.textContent('header')).toContain(SESSION.serial);
    expect(errors).toEqual([]);
  }, 60_000);
});
