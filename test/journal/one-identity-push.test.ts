import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { hashedPunchId } from '../../src/journal/punch-id.js';
import { attlog, http } from '../adms/harness.js';
import { startPushStack } from '../adms/daemon-stack.js';
import { spawnDaemon, type DaemonProcess } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Issue 30, class 3, by the push route (test/journal/one-identity.test.ts covers ZK polls): a push
 * terminal's USB export imported before the terminal ever pushed, then the same punches pushed
 * (its serial in another case, by ATTLOG, in two uploads), then the export imported again and a
 * CSV naming the terminal: each punch journalled and delivered once, under the id the push gives it.
 */
const SN = 'CQZ7232169601';
const SITE = 'plant-p';
const PUNCHES = 12;

describe('one identity for a push terminal’s punch, whatever the route', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it('import before the first push, the push, the import again and a CSV: each punch delivered once, under one id', async () => {
    const stack = await startPushStack({ terminals: [{ name: 'lobby', serial: SN }] });
    let d: DaemonProcess | undefined;
    stop = async () => {
      d?.child.kill('SIGTERM');
      await d?.exited;
      await stack.stop();
    };
    const punches = Array.from({ length: PUNCHES }, (_, i) => ({
      pin: String(4000 + (i % 5)),
      time: `2026-11-20 ${String(7 + i).padStart(2, '0')}:15:00`,
    }));
    const dat = stack.tmp.path('lobby_attlog.dat');
    writeFileSync(dat, punches.map((p) => `${p.pin.padStart(9)}\t${p.time}\t1\t0\t1\t0`).join('\r\n') + '\r\n');
    const csv = stack.tmp.path('lobby.csv');
    writeFileSync(csv, 'biometriccode,logDate,terminal\n' + punches.map((p) => `${p.pin},${p.time},lobby`).join('\n'));
    const cli = (...args: string[]) => runPunchgate(['--config', stack.configPath, ...args]);

    // The journal exists (the service ran once), the terminal never pushed.
    Journal.open({ path: stack.tmp.path('journal.db'), site: SITE, mode: 'owner' }).close();
    const first = await cli('import', '--terminal', 'lobby', dat);
    expect(first.stdout).toContain(`${PUNCHES} new, 0 duplicates`);
    d = spawnDaemon(stack.configPath);
    await waitFor(() => stack.hrms.attendance().length >= PUNCHES, 30_000, 'the imported punches delivered');
    // The terminal pushes the same punches (serial in lower case, two uploads).
    const lines = punches.map((p) => `${p.pin}\t${p.time}\t0\t1`);
    for (const [k, part] of [lines.slice(0, 5), lines.slice(5)].entries())
      expect(
        await http(stack.url, 'POST', `/iclock/cdata?SN=${SN.toLowerCase()}&table=ATTLOG&Stamp=${k + 1}`, attlog(part)),
      ).toEqual({ status: 200, body: `OK:${part.length}` });
    await waitFor(() => /pushed 7 punches \(0 new, 7 already journalled\)/.test(d!.output()), 20_000, 'the push');
    d.child.kill('SIGTERM');
    await d.exited;
    d = undefined;
    // Imported again, as an export and as a CSV naming the terminal: nothing new.
    expect((await cli('import', '--terminal', 'lobby', dat)).stdout).toContain(`0 new, ${PUNCHES} duplicates`);
    expect((await cli('import', csv)).stdout).toContain(`0 new, ${PUNCHES} duplicates`);
    d = spawnDaemon(stack.configPath);
    await waitFor(
      async () => JSON.parse((await cli('status', '--json')).stdout).punches.pending === 0,
      20_000,
      'nothing pending',
    );
    const got = stack.hrms.received().filter((r) => r.logDate.startsWith('2026-11-20'));
    expect(got).toHaveLength(PUNCHES);
    expect(new Set(got.map((r) => r.devicelogId))).toEqual(
      new Set(
        punches.map((p) =>
          hashedPunchId({ site: SITE, terminal: 'lobby', device: SN, biometricCode: p.pin, logTime: p.time }),
        ),
      ),
    );
  }, 120_000);
});
