import { afterEach, describe, expect, it } from 'vitest';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { startPushDaemon } from './daemon-stack.js';
import { attlog, http } from './harness.js';

/**
 * Issue 30, class 1 ("an upload whose only line was refused still moved the OPERLOG stamp"),
 * through `punchgate run`: the terminal itself uploads, on each table that carries a stamp, lines
 * the journal's door refuses (codes with a variation selector, a combining mark, a control
 * character), with a stamp far ahead. What the terminal is told at its next handshake is what was
 * stored: no stamp moves, no user is kept, nothing reaches the HRMS. Then one good line each
 * moves each stamp. A stranger's good lines under the same stamps move nothing either.
 */
const SN = 'CQZ7232169701';

describe('a stamp moves only with what its upload stored, through punchgate run', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it('uploads of refused lines only (OPERLOG, USERINFO, ATTLOG), a stranger’s good ones, then good ones', async () => {
    const { stack, stop: stopAll } = await startPushDaemon({ terminals: [{ name: 'lobby', serial: SN }] });
    stop = stopAll;
    const stamps = async () =>
      (await http(stack.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=2.4.1`)).body
        .split('\n')
        .filter((l) => /Stamp=/.test(l))
        .sort();
    const told = await stamps();
    const refusedPins = ['1011\uFE0F', '10\u030111', '1011\u0007'];
    const uploads = (pins: string[], k: number) => [
      [`table=OPERLOG&Stamp=${900 + k}`, pins.map((p) => `USER PIN=${p}\tName=X\tPri=14`).join('\n') + '\n'],
      [`table=USERINFO&Stamp=${910 + k}`, pins.map((p) => `PIN=${p}\tName=X\tPri=14`).join('\n') + '\n'],
      [`table=ATTLOG&Stamp=${920 + k}`, attlog(pins.map((p) => `${p}\t2026-11-03 08:0${k}:00\t0\t1`))],
    ];
    for (const [k, pin] of refusedPins.entries())
      for (const [q, body] of uploads([pin], k)) {
        const a = await http(stack.url, 'POST', `/iclock/cdata?SN=${SN}&${q}`, body);
        // Answered (the terminal must not send them forever), but nothing stored.
        expect(a.status, `${q} ${JSON.stringify(pin)}`).toBe(200);
      }
    for (const [q, body] of uploads(['2002'], 5))
      expect((await http(stack.url, 'POST', `/iclock/cdata?SN=${SN}&${q}`, body, {}, '127.0.0.2')).status).toBe(403);
    expect(await stamps()).toEqual(told);
    const users = async () =>
      (await runPunchgate(['--config', stack.configPath, 'terminals', 'users', 'lobby'])).stdout
        .split('\n')
        .slice(1)
        .filter((l) => /^\s*\d/.test(l))
        .map((l) => l.trim().split(/\s+/)[0]);
    expect(await users()).toEqual([]);
    // One good line each: every stamp moves.
    for (const [q, body] of uploads(['1001'], 7))
      expect((await http(stack.url, 'POST', `/iclock/cdata?SN=${SN}&${q}`, body)).status).toBe(200);
    const after = await stamps();
    expect(after.join('\n')).toMatch(/ATTLOGStamp=927/);
    expect(after.join('\n')).toMatch(/OPERLOGStamp=907/);
    expect(await users()).toEqual(['1001']);
    await waitFor(() => stack.hrms.attendance().length >= 1, 20_000, 'the good punch delivered');
    expect(stack.hrms.attendance().map((p) => `${p.biometriccode}@${p.logDate}`)).toEqual(['1001@2026-11-03 08:07:00']);
  }, 90_000);
});
