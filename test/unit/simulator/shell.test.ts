import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../../simulator/scenario.js';
import { buildVenue } from '../../../simulator/venue.js';
import { openShell, shellAnswer } from '../../../simulator/ap/shell.js';
import { SimulatedClock } from 'xstate';

/** The shell behind a simulated AP's rtty session: answers from the AP's state, the same each time. */
function lab() {
  const clock = new SimulatedClock();
  clock.set(Date.UTC(2026, 0, 1, 12, 0, 0));
  const venue = buildVenue(loadScenario('lab').scenario, clock, 7);
  return { clock, ap: venue.aps[0]! };
}

describe('simulated AP shell', () => {
  it('answers the commands it knows from the AP, the same for the same AP and time', () => {
    const { clock, ap } = lab();
    const t = clock.now() + 3_723_000;
    ap.bootAt = clock.now();
    expect(shellAnswer(ap, t, 'uptime')).toMatch(/^ 13:02:03 up 1:02, {2}load average: /);
    expect(shellAnswer(ap, t, 'uname -a')).toContain(`${ap.model} GNU/Linux`);
    expect(shellAnswer(ap, t, 'cat /etc/openwrt_release')).toContain(`DISTRIB_RELEASE='${ap.firmware}'`);
    expect(JSON.parse(shellAnswer(ap, t, 'ubus call system board'))).toMatchObject({ model: ap.capabilities.model, board_name: ap.capabilities.compatible });
    expect(shellAnswer(ap, t, '  frob  --x ')).toBe('sh: frob: not found\n');
    expect(shellAnswer(ap, t, 'uname -a')).toBe(shellAnswer(ap, t, 'uname -a'));
  });

  it('echoes keys, edits with backspace, runs a line on Enter (CR LF once), and exits', () => {
    const { clock, ap } = lab();
    let out = '';
    let exited = 0;
    const sh = openShell(ap, () => clock.now(), { write: (s) => { out += s; }, exit: () => { exited++; } });
    expect(out).toContain(ap.serial);
    out = '';
    sh.input('hostnamx\x7fe\r\n');
    expect(out).toBe('hostnamx\b \be\r\nOpenWrt\r\nroot@OpenWrt:~# ');
    out = '';
    sh.input('exit\r');
    expect(out).toBe('exit\r\nlogout\r\n');
    expect(exited).toBe(1);
    sh.input('uptime\r');
    expect(out).toBe('exit\r\nlogout\r\n');
  });
});
