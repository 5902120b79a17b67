/**
 * The signal handling of the `airtwin` commands (src/cli/ is the one place that handles signals
 * and exits): a first SIGINT/SIGTERM stops or shuts down, a second quits at once.
 */
/**
 * A second signal: the process ends by that signal, as if it had no handler (a shell shows 130
 * for SIGINT, 143 for SIGTERM). Not process.exit: that joins libuv's thread pool, and a thread
 * stuck in a write (a hung mount) would hold the exit forever.
 */
function quitAtOnce(name: NodeJS.Signals): never {
  process.stderr.write(`${name} again: quitting at once\n`);
  process.removeAllListeners(name);
  process.kill(process.pid, name);
  // The default action ends the process; should it be delayed, this is the fallback.
  return process.exit(128 + (name === 'SIGINT' ? 2 : 15));
}

/**
 * SIGINT/SIGTERM for a command that runs until stopped (serve, edge, simulate --edge/--nats), one
 * handler for its whole life: swapping a start-up handler for a running one dropped a signal that
 * came in between (libuv closes a signal's handle when its last listener goes). During start-up
 * the first signal aborts `starting` (`NAME: stopping`); once `running(close)` is called, the
 * first runs `close` and exits 0 (1 if closing failed); a second signal quits at once
 * (quitAtOnce), so a shutdown stuck on a device (a recording to a stalled pipe) never needs a kill -9.
 */
export function serviceSignals(say: NodeJS.WritableStream = process.stdout): { starting: AbortSignal; running: (close: () => Promise<void>) => void } {
  const ctl = new AbortController();
  let close: (() => Promise<void>) | undefined;
  let closing = false;
  const on = (name: NodeJS.Signals) => {
    if (closing || ctl.signal.aborted) quitAtOnce(name);
    if (!close) {
      // After a progress bar's line, not on it.
      say.write(`${process.stderr.isTTY ? '\n' : ''}${name}: stopping\n`);
      ctl.abort();
      return;
    }
    closing = true;
    // After a replay's progress bar (drawn on stderr when it is a terminal), not on its line.
    say.write(`${process.stderr.isTTY ? '\n' : ''}${name}: shutting down\n`);
    close().then(() => process.exit(0), (e: unknown) => {
      process.stderr.write(`shutdown failed: ${String(e)}\n`);
      process.exit(1);
    });
  };
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
  return { starting: ctl.signal, running: (c) => { close = c; } };
}

/**
 * Ctrl-C or SIGTERM for a run that can end early and keep what it did (simulate --record,
 * replay): the first signal aborts `signal` and prints `stopping`; a second quits at once (quitAtOnce).
 */
export function stopOnSignal(stopping: string): { signal: AbortSignal; off: () => void } {
  const ctl = new AbortController();
  const on = (name: NodeJS.Signals) => {
    if (ctl.signal.aborted) quitAtOnce(name);
    // After a progress bar's line, not on it.
    process.stdout.write(`${process.stdout.isTTY ? '\n' : ''}${name}: ${stopping}\n`);
    ctl.abort();
  };
  process.on('SIGINT', on);
  process.on('SIGTERM', on);
  return { signal: ctl.signal, off: () => { process.off('SIGINT', on); process.off('SIGTERM', on); } };
}
