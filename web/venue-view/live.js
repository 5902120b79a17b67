// The live websocket (/api/v1/venue/live): reconnects with a growing pause, and keeps how far
// behind the page is (wall time from the server's send to the end of the page's handling).
export const liveStats = { messages: 0, lagMs: [], maxLagMs: 0, handleMs: [] };

function keep(list, v) {
  list.push(v);
  if (list.length > 500) list.shift();
}

export function connectLive(url, onMessage, onStatus) {
  let ws, retry = 500, stopped = false;
  const open = () => {
    ws = new WebSocket(url);
    ws.onopen = () => {
      retry = 500;
      onStatus('live');
    };
    ws.onmessage = (e) => {
      const began = performance.now();
      const msg = JSON.parse(e.data);
      onMessage(msg);
      liveStats.messages++;
      keep(liveStats.handleMs, performance.now() - began);
      const lag = Date.now() - msg.sent;
      keep(liveStats.lagMs, lag);
      liveStats.maxLagMs = Math.max(liveStats.maxLagMs, lag);
    };
    ws.onclose = () => {
      if (stopped) return;
      onStatus('reconnecting');
      setTimeout(open, retry);
      retry = Math.min(10_000, retry * 2);
    };
  };
  open();
  return () => {
    stopped = true;
    ws?.close();
  };
}
