import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: string;
  body: unknown;
  text: string;
  /** How the connection ended: closed by the server, reset, or still open when the test stopped waiting. */
  end: 'closed' | 'reset' | 'open';
}

/** How many complete answers (by Content-Length) `text` holds. */
function completeAnswers(text: string): number {
  let n = 0;
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return n;
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(rest.slice(0, end))?.[1] ?? 0);
    if (rest.length < end + 4 + length) return n;
    n++;
    rest = rest.slice(end + 4 + length);
  }
}

/**
 * Sends `data` on a new connection and reads what comes back until `answers` complete answers
 * came, the server closes, or `waitMs`.
 */
export function rawRequest(url: string, data: string | Buffer | ((s: net.Socket) => void), answers = 1, waitMs = 20_000): Promise<RawAnswer> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(u.port), u.hostname);
    const chunks: Buffer[] = [];
    let end: RawAnswer['end'] = 'open';
    let resolved = false;
    const done = () => {
      if (resolved) return;
      resolved = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const bodyText = rest.join('\r\n\r\n');
      let body: unknown = bodyText;
      try {
        body = JSON.parse(bodyText);
      } catch {
        // not JSON: keep the text
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body, text, end });
    };
    const timer = setTimeout(done, waitMs);
    socket.on('data', (c) => {
      chunks.push(c);
      if (completeAnswers(Buffer.concat(chunks).toString('utf8')) >= answers) done();
    });
    socket.on('error', () => (end = 'reset'));
    socket.on('close', () => {
      if (end === 'open') end = 'closed';
      done();
    });
    socket.on('connect', () => (typeof data === 'function' ? data(socket) : socket.write(data)));
  });
}
