import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { generateRecords, startDahuaSim } from '../../src/sim/dahua/index.js';
import { sourceDepsFor } from '../../src/sources/deps.js';
import { DahuaPoller } from '../../src/sources/dahua/index.js';
import { buildStatus, formatStatus } from '../../src/status/index.js';
import { createLogger } from '../../src/util/logger.js';
import { dahuaConfig, journalFixture, OFFSET_MIN, PASSWORD } from './helpers.js';

/**
 * The status and the log put a terminal's name before its fault. A Dahua fault built with the
 * name as well said it twice: "terminal front-door: front-door: 127.0.0.1:... did not finish its
 * answer" (a log line), "front-door: front-door: ..." (the status's terminal lines).
 */
describe('a Dahua fault names its terminal once', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('an answer too large or endless, in the log and the status', async () => {
    const f = journalFixture();
    cleanups.push(f.cleanup);
    let logs = '';
    const deps = sourceDepsFor(f.journal, createLogger({ destination: { write: (s: string) => void (logs += s) } }), {
      now: () => Date.now(),
    });
    const now = Math.floor(Date.now() / 1000) + OFFSET_MIN * 60;
    const sim = await startDahuaSim({
      password: PASSWORD,
      utcOffsetMinutes: OFFSET_MIN,
      records: generateRecords(5, now - 120),
    });
    cleanups.push(() => sim.stop());
    const cfg = dahuaConfig(sim, { passwordFile: f.passwordFile, timeoutMs: 1000 });
    const poller = new DahuaPoller(cfg, deps);
    cleanups.push(() => poller.destroy());
    const config = parseConfig(
      {
        site: 'test',
        journal: { path: f.tmp.path('journal.db') },
        hrms: { baseUrl: 'https://hr.example.com', tokenFile: 'token' },
        terminals: [
          { name: 'front-door', kind: 'dahua', host: '127.0.0.1', port: sim.port, passwordFile: f.passwordFile },
        ],
      },
      f.tmp.dir,
    );

    for (const fault of ['huge', 'endless'] as const) {
      sim.faults({ search: fault, hugeMb: 20 });
      expect((await poller.poll()).ok).toBe(false);
      const cause = f.journal.terminals.get('front-door')?.lastError ?? '';
      expect(cause).toMatch(fault === 'huge' ? /more than 4096 kB/ : /did not finish its answer/);
      const messages = logs
        .split('\n')
        .filter(Boolean)
        .map((l) => String((JSON.parse(l) as { msg?: unknown }).msg));
      const line = messages.find((m) => m.includes(cause));
      expect(line, messages.join('\n')).toBeDefined();
      expect(line!.match(/front-door/g)).toHaveLength(1);
      const text = formatStatus(buildStatus(f.journal, config, Date.now(), { freeBytes: 1e12 }));
      for (const l of text.split('\n').filter((x) => x.includes(cause)))
        expect(l.match(/front-door/g), l).toHaveLength(1);
    }

    // A refused password: its words lead with the name (the alert says "terminal <cause>").
    sim.faults({ search: null });
    writeFileSync(f.passwordFile, 'Wrong-one-1\n');
    expect(await poller.poll()).toMatchObject({ ok: false, authRefused: true });
    const text = formatStatus(buildStatus(f.journal, config, Date.now(), { freeBytes: 1e12 }));
    const said = text.split('\n').filter((l) => l.includes('refuses the password'));
    expect(said.length, text).toBeGreaterThan(0);
    // (The password file's path holds the name too: not counted.)
    for (const l of said) expect(l.replace(/\S*front-door\.pass/g, '').match(/front-door/g), l).toHaveLength(1);
  }, 30_000);
});
