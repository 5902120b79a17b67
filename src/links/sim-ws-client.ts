/**
 * A DeviceLink's AP side as a websocket client of an edge: what a real AP does, driven by any
 * link that produces frames (the simulator's SimLink for load, a script in tests). Frames sent
 * before the socket opened wait in order; commands from the edge go to `onCommand`.
 */
import WebSocket from 'ws';
import { isCommand, type DownFrame } from '../protocol/frame.js';

export interface WsApTls {
  /** PEM device certificate (CN = serial), its key, and the CA that signed the edge's certificate. */
  cert: string | Buffer;
  key: string | Buffer;
  ca: string | Buffer;
}

export interface WsApOptions {
  url: string;
  tls?: WsApTls;
  onCommand?: (frame: DownFrame) => void;
  onClose?: (code: number, reason: string) => void;
  /** Called with anything received that is not a command frame. */
  onOther?: (text: string) => void;
}

export class WsApClient {
  private readonly ws: WebSocket;
  private readonly queue: string[] = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(private readonly opts: WsApOptions) {
    this.ws = new WebSocket(opts.url, {
      perMessageDeflate: false,
      ...(opts.tls ? { cert: opts.tls.cert, key: opts.tls.key, ca: opts.tls.ca } : {}),
    });
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => {
        for (const t of this.queue.splice(0)) this.ws.send(t);
        resolve();
      });
      this.ws.once('error', reject);
      this.ws.once('close', () => reject(new Error('closed before open')));
    });
    // Observed, so a refused connection rejects `opened` without an unhandled rejection.
    this.opened.catch(() => undefined);
    this.closed = new Promise((resolve) => {
      this.ws.once('close', (code, reason) => {
        opts.onClose?.(code, reason.toString());
        resolve({ code, reason: reason.toString() });
      });
    });
    this.ws.on('error', () => undefined);
    this.ws.on('message', (data) => {
      const text = (data as Buffer).toString('utf8');
      let frame: unknown;
      try {
        frame = JSON.parse(text);
      } catch {
        frame = undefined;
      }
      if (isCommand(frame)) opts.onCommand?.(frame);
      else opts.onOther?.(text);
    });
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Send one text frame (a JSON-RPC object or, for tests, any text). */
  send(frame: object | string): void {
    const text = typeof frame === 'string' ? frame : JSON.stringify(frame);
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(text);
    else if (this.ws.readyState === WebSocket.CONNECTING) this.queue.push(text);
  }

  sendBinary(data: Buffer): void {
    if (this.isOpen) this.ws.send(data, { binary: true });
  }

  close(): Promise<{ code: number; reason: string }> {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(1000, 'bye');
    return this.closed;
  }

  terminate(): void {
    this.ws.terminate();
  }
}
