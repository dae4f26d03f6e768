/**
 * A serial reader whose device is not there (a path copied from the docs, an adapter not plugged
 * in) from the first start: a new-user trial found its row saying "not polled yet" (status) and
 * "unknown ... never" (terminals) for as long as the daemon ran, under an alert saying it had been
 * unreachable for minutes, and that alert saying "its punches wait on the terminal", which a badge
 * reader never does.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { Journal } from '../../src/journal/index.js';
import { buildStatus } from '../../src/status/index.js';
import { spawnDaemon, startStack } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { fakeClock, tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';

interface StatusJson {
  terminals: { name: string; online: boolean; lastPollAt: string | null; problem: { cause: string } | null }[];
}

describe('a serial reader whose device never opened', () => {
  it('is OFFLINE with its cause in the status and the terminals list, not "not polled yet"', async () => {
    const stack = await startStack({ terminals: 0 });
    const missing = stack.tmp.path('ttyUSB-not-there');
    stack.writeConfig(undefined, (c) => {
      c.terminals.push({ name: 'door-reader', kind: 'serial', path: missing, format: 'card' } as never);
    });
    const d = spawnDaemon(stack.configPath);
    await waitFor(() => d.output().includes('punchgate running'), 20_000, 'the daemon started');
    const row = async () => {
      const r = await runPunchgate(['--config', stack.configPath, 'status', '--json']);
      return (JSON.parse(r.stdout) as StatusJson).terminals.find((t) => t.name === 'door-reader');
    };
    try {
      await waitFor(async () => (await row())?.lastPollAt != null, 20_000, 'the failed open in the status');
      const t = await row();
      expect(t?.online).toBe(false);
      expect(t?.problem?.cause).toBe(`no such device ${missing} (the adapter is unplugged, or its name changed)`);
      const text = (await runPunchgate(['--config', stack.configPath, 'status'])).stdout;
      expect(text).toMatch(/door-reader\s+OFFLINE\s+last contact never\s+last read 20\d\d-/);
      expect(text).not.toContain('not polled yet');
      expect(text).toMatch(/door-reader OFFLINE for \d+ s \(an alert at 5 min\)/);
      const list = (await runPunchgate(['--config', stack.configPath, 'terminals'])).stdout;
      expect(list).toMatch(/door-reader\s+serial\s+offline\s+20\d\d-/);
    } finally {
      d.child.kill('SIGTERM');
      expect((await d.exited).code, d.output().slice(-2000)).toBe(0);
      await stack.stop();
    }
  }, 60_000);
});

describe('the alert of a serial reader away for minutes', () => {
  let tmp: ReturnType<typeof tempDir>;
  let journal: Journal;
  const clock = fakeClock(Date.UTC(2026, 10, 30, 12, 0, 0));
  beforeEach(() => {
    tmp = tempDir();
    journal = Journal.open({ path: tmp.path('j.db'), site: 'plant-a', clock, mode: 'owner' });
  });
  afterEach(() => {
    journal.close();
    tmp.cleanup();
  });

  it('says that what it reads meanwhile is lost (a reader keeps nothing), not that its punches wait on it', () => {
    const config = parseConfig(
      {
        site: 'plant-a',
        journal: { path: tmp.path('j.db') },
        hrms: { baseUrl: 'https://hr.example.com', tokenFile: 'token' },
        terminals: [
          { name: 'gate-1', kind: 'zk', host: '10.0.0.1' },
          { name: 'door-reader', kind: 'serial', path: '/dev/ttyUSB7', format: 'card' },
        ],
      },
      tmp.dir,
    );
    const away = { online: false, lastPollAt: clock.now(), offlineSince: clock.now() - 10 * 60_000 };
    journal.terminals.update('gate-1', { ...away, lastError: 'no reply from 10.0.0.1:4370' });
    journal.terminals.update('door-reader', { ...away, lastError: 'no such device /dev/ttyUSB7' });
    const alerts = buildStatus(journal, config, clock.now()).alerts;
    expect(alerts.find((a) => a.startsWith('terminal door-reader unreachable for 10 min'))).toContain(
      '(no such device /dev/ttyUSB7): what it reads meanwhile is lost, unless the reader keeps a log of its own',
    );
    expect(alerts.find((a) => a.startsWith('terminal gate-1 unreachable for 10 min'))).toContain(
      'its punches wait on the terminal',
    );
  });
});
