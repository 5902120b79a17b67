// Calls to the gateway (same origin) and the RRM service (its own port), with the bearer token.
const TOKEN_KEY = 'airtwin.token';

/** The token: from `#token=` (the banner's URL; removed from the address bar), else the one kept. */
export function takeToken() {
  const hash = new URLSearchParams(location.hash.slice(1));
  const given = hash.get('token');
  if (given) {
    localStorage.setItem(TOKEN_KEY, given);
    history.replaceState(null, '', location.pathname + location.search);
  }
  return localStorage.getItem(TOKEN_KEY) ?? '';
}

export function saveToken(t) {
  localStorage.setItem(TOKEN_KEY, t);
}

export function forgetToken() {
  localStorage.removeItem(TOKEN_KEY);
}

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.ErrorDescription ?? `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

export function client(token) {
  let rrmBase = '';
  async function call(base, method, path, body) {
    const headers = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    if (!res.ok) throw new ApiError(res.status, parsed);
    return parsed;
  }
  return {
    token,
    gw: (method, path, body) => call('', method, path, body),
    rrm: (method, path, body) => call(rrmBase, method, path, body),
    /** The RRM service listens on its own port of the same host. */
    setRrm(port, tls) {
      rrmBase = port ? `${tls ? 'https' : 'http'}://${location.hostname}:${port}` : '';
    },
    liveUrl() {
      const proto = location.protocol === 'https:' ? 'wss' : 'ws';
      return `${proto}://${location.host}/api/v1/venue/live?token=${encodeURIComponent(token)}`;
    },
  };
}
