import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import type { HikvisionSim } from '../../src/sim/hikvision/index.js';
import { sourceDepsFor } from '../../src/sources/deps.js';
import { HikvisionPoller } from '../../src/sources/hikvision/index.js';
import { buildStatus, formatStatus } from '../../src/status/index.js';
import { createLogger } from '../../src/util/logger.js';
import { hikConfig, journalFixture, startSim } from './helpers.js';

/**
 * A refused password's words lead with the terminal's name ("reception refuses the password"), so
 * that the status says it at once. The log and the status's terminal lines put the name before
 * every fault as well: "terminal reception: reception refuses the password" (the log),
 * "reception: reception refuses the password" (the status).
 */
describe('a refused Hikvision password names its terminal once', () => {
  let sim: HikvisionSim | undefined;
  let fx: ReturnType<typeof journalFixture> | undefined;
  let poller: HikvisionPoller | undefined;
  afterEach(async () => {
    await poller?.close();
    await sim?.stop();
    fx?.cleanup();
  });

  it('in the log and the status', async () => {
    sim = await startSim(5);
    fx = journalFixture();
    writeFileSync(fx.passwordFile, 'wrong\n');
    let logs = '';
    const logger = createLogger({ destination: { write: (s: string) => void (logs += s) } });
    const cfg = hikConfig(sim, { passwordFile: fx.passwordFile });
    poller = new HikvisionPoller(cfg, sourceDepsFor(fx.journal, logger, { now: () => Date.now() }), undefined, {});
    expect(await poller.poll()).toMatchObject({ ok: false, authRefused: true });

    const messages = logs
      .split('\n')
      .filter(Boolean)
      .map((l) => String((JSON.parse(l) as { msg?: unknown }).msg));
    const refused = messages.filter((m) => m.includes('refuses the password'));
    expect(refused.length, messages.join('\n')).toBeGreaterThan(0);
    // (The password file's path holds the name too: not counted.)
    const names = (l: string) => l.replace(/\S*reception\.pass/g, '').match(/reception/g)?.length;
    for (const m of refused) expect(names(m), m).toBe(1);

    const config = parseConfig(
      {
        site: 'test',
        journal: { path: fx.tmp.path('journal.db') },
        hrms: { baseUrl: 'https://hr.example.com', tokenFile: 'token' },
        terminals: [{ name: 'reception', kind: 'hikvision', url: sim.url, passwordFile: fx.passwordFile }],
      },
      fx.tmp.dir,
    );
    const text = formatStatus(buildStatus(fx.journal, config, Date.now(), { freeBytes: 1e12 }));
    const said = text.split('\n').filter((l) => l.includes('refuses the password'));
    expect(said.length, text).toBeGreaterThan(1); // the alert and the terminal's line
    for (const l of said) expect(names(l), l).toBe(1);
  });
});
