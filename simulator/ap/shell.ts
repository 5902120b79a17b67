/**
 * The shell a simulated AP's rtty session runs: a line discipline (echo, backspace, Ctrl-C,
 * Ctrl-D) and a few commands answered from the AP's state and the venue clock, so the same AP at
 * the same time answers the same text. Anything else is `sh: <cmd>: not found`, as busybox says.
 */
import type { SimAp } from './ap-state.js';

/** What the shell writes to and how it says it is done (the rtty client carries both). */
export interface ShellIo {
  write(text: string): void;
  exit(): void;
}

export interface SimShell {
  /** Bytes typed in the terminal (keys, or a pasted line). */
  input(data: string): void;
  close(): void;
}

const PROMPT = 'root@OpenWrt:~# ';

function duration(seconds: number): string {
  const days = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const clock = h > 0 ? `${h}:${String(m).padStart(2, '0')}` : `${m} min`;
  return days > 0 ? `${days} day${days === 1 ? '' : 's'}, ${clock}` : clock;
}

function hhmmss(ms: number): string {
  const d = new Date(ms);
  return [d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** The answer to one command line, from the AP's state at `now` (ms). */
export function shellAnswer(ap: SimAp, now: number, line: string): string {
  const cmd = line.trim().replace(/\s+/g, ' ');
  const upS = Math.max(0, Math.floor((now - ap.bootAt) / 1000));
  const caps = ap.capabilities;
  switch (cmd) {
    case '':
      return '';
    case 'uptime': {
      const load = (0.05 + (ap.radios.reduce((n, r) => n + r.stations.length, 0) % 20) / 100).toFixed(2);
      return ` ${hhmmss(now)} up ${duration(upS)},  load average: ${load}, ${load}, ${load}\n`;
    }
    case 'uname -a':
      return `Linux OpenWrt 5.4.213 #0 SMP ${caps.platform || 'ap'} ${ap.model} GNU/Linux\n`;
    case 'uname':
      return 'Linux\n';
    case 'hostname':
      return 'OpenWrt\n';
    case 'cat /etc/openwrt_release':
      return [
        "DISTRIB_ID='OpenWrt'", `DISTRIB_RELEASE='${ap.firmware}'`, `DISTRIB_REVISION='${ap.firmware}'`,
        `DISTRIB_TARGET='${caps.compatible}'`, "DISTRIB_ARCH='aarch64'", `DISTRIB_DESCRIPTION='${ap.firmware}'`, '',
      ].join('\n');
    case 'ubus call system board':
      return `${JSON.stringify({
        kernel: '5.4.213', hostname: 'OpenWrt', system: 'ARMv8 Processor rev 4', model: caps.model, board_name: caps.compatible,
        release: { distribution: 'OpenWrt', version: ap.firmware, target: caps.compatible, description: ap.firmware },
      }, null, '\t')}\n`;
    case 'help':
      return 'Commands: uptime, uname -a, hostname, cat /etc/openwrt_release, ubus call system board, exit\n';
    default:
      return `sh: ${cmd.split(' ')[0]}: not found\n`;
  }
}

/** Terminal text: lines end in CR LF. */
const crlf = (s: string) => s.replace(/\r?\n/g, '\r\n');

/** Opens a shell: writes the banner and the prompt, then answers each line typed. */
export function openShell(ap: SimAp, now: () => number, io: ShellIo): SimShell {
  let line = '';
  let open = true;
  let afterCr = false;
  const write = (s: string) => { if (open) io.write(crlf(s)); };
  const exit = () => {
    if (!open) return;
    write('logout\n');
    open = false;
    io.exit();
  };
  write(`\nBusyBox built-in shell (ash) on simulated AP ${ap.serial} (${ap.model}, ${ap.firmware})\n\n${PROMPT}`);
  return {
    input(data) {
      for (const ch of data) {
        if (!open) return;
        // CR LF is one Enter.
        const skip = afterCr && ch === '\n';
        afterCr = ch === '\r';
        if (skip) continue;
        if (ch === '\r' || ch === '\n') {
          write('\n');
          const cmd = line.trim();
          line = '';
          if (cmd === 'exit' || cmd === 'logout') return exit();
          write(`${shellAnswer(ap, now(), cmd)}${PROMPT}`);
        } else if (ch === '\x7f' || ch === '\b') {
          if (line.length > 0) { line = line.slice(0, -1); write('\b \b'); }
        } else if (ch === '\x03') {
          line = '';
          write(`^C\n${PROMPT}`);
        } else if (ch === '\x04') {
          if (line === '') return exit();
        } else if (ch >= ' ' && line.length < 1024) {
          line += ch;
          write(ch);
        }
      }
    },
    close() {
      open = false;
    },
  };
}
