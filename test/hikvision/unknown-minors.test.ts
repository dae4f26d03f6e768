import { afterEach, describe, expect, it } from 'vitest';
import { HikvisionPoller, HikvisionSource } from '../../src/sources/hikvision/index.js';
import { startHikvisionSim, type HikvisionSim, type NewSimEvent } from '../../src/sim/hikvision/index.js';
import { createLogger } from '../../src/util/logger.js';
import { waitFor } from '../helpers/wait.js';
import { hikConfig, journalFixture, journalKeys, PASSWORD, passwordEnv, startSim } from './helpers.js';

let sim: HikvisionSim | undefined;
let fx: ReturnType<typeof journalFixture> | undefined;
const pollers: HikvisionPoller[] = [];
let source: HikvisionSource | undefined;
afterEach(async () => {
  for (const p of pollers.splice(0)) await p.close();
  await source?.stop();
  source = undefined;
  await sim?.stop();
  fx?.cleanup();
  sim = fx = undefined;
});

const at = (s: number) => `2026-11-02T08:00:${String(s).padStart(2, '0')}+07:00`;

/**
 * A firmware newer than punchgate's tables writes a pass under a minor it has never seen (a new
 * verification mode): not in the pass list, it was no punch, and nothing said so; the site lost
 * that mode's attendance in silence. Major 5 carries door events and failures too, so the minors
 * known not to be passes (HCNetSDK's MAJOR_EVENT table) stay quiet; any other minor with an
 * employee number is said once per code per terminal, with the config key that makes it a pass.
 */
describe('a major-5 minor in neither the pass list nor the known non-passes', () => {
  it('is said once per code, naming the code, the terminal and `minors`; door events and failures are not', async () => {
    const rows: NewSimEvent[] = [
      { major: 5, minor: 75, time: at(1), employeeNoString: 'F75' },
      { major: 5, minor: 190, time: at(2), employeeNoString: 'N1' },
      { major: 5, minor: 190, time: at(3), employeeNoString: 'N2' },
      { major: 5, minor: 191, time: at(4), cardNo: 'C0001', employeeNoString: 'N3' },
      // Known non-passes carrying an employee number: a fingerprint mismatch, a face-and-card time-out, a door opened.
      { major: 5, minor: 39, time: at(5), employeeNoString: 'F39' },
      { major: 5, minor: 62, time: at(6), employeeNoString: 'F62' },
      { major: 5, minor: 21, time: at(7), employeeNoString: 'F21' },
      // An unknown minor without an employee number (a door or alarm event of a newer firmware).
      { major: 5, minor: 192, time: at(8) },
    ];
    sim = await startHikvisionSim({ password: PASSWORD, utcOffset: '+07:00', events: rows });
    fx = journalFixture();
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (s) => void lines.push(s) } });
    const p = new HikvisionPoller(hikConfig(sim), { ...fx.deps, logger }, undefined, passwordEnv());
    pollers.push(p);
    expect(await p.poll()).toMatchObject({ ok: true, added: 1 });
    expect(journalKeys(fx.journal)).toEqual(['F75@2026-11-02 08:00:01']);
    const said = () => lines.filter((l) => l.includes('neither an authentication pass'));
    expect(said()).toHaveLength(2);
    expect(said()[0]).toContain('terminal reception: events 5/190 carry an employee number');
    expect(said()[0]).toContain('add 190 to the `minors` of terminal reception');
    expect(said()[0]).toContain('181, 190]');
    expect(said()[1]).toContain('events 5/191');
    for (const l of said()) expect(JSON.parse(l)).toMatchObject({ level: 40 });

    // More of them at the next poll: nothing said again.
    sim.addEvents([{ major: 5, minor: 190, time: at(9), employeeNoString: 'N4' }]);
    expect(await p.poll()).toMatchObject({ ok: true });
    expect(said()).toHaveLength(2);
  });

  it('listed in `minors`, is a punch and is not said', async () => {
    sim = await startHikvisionSim({
      password: PASSWORD,
      utcOffset: '+07:00',
      events: [
        { major: 5, minor: 190, time: at(2), employeeNoString: 'N1' },
        { major: 5, minor: 191, time: at(4), employeeNoString: 'N3' },
      ],
    });
    fx = journalFixture();
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (s) => void lines.push(s) } });
    const p = new HikvisionPoller(
      hikConfig(sim, { minors: [75, 190, 191] }),
      { ...fx.deps, logger },
      undefined,
      passwordEnv(),
    );
    pollers.push(p);
    expect(await p.poll()).toMatchObject({ ok: true, added: 2 });
    expect(journalKeys(fx.journal)).toEqual(['N1@2026-11-02 08:00:02', 'N3@2026-11-02 08:00:04']);
    expect(lines.filter((l) => l.includes('neither an authentication pass'))).toEqual([]);
  });

  it('brought by the alert stream, is said once for the terminal, and not again by the poll that reads it after', async () => {
    sim = await startSim(3);
    fx = journalFixture();
    const lines: string[] = [];
    source = new HikvisionSource(
      hikConfig(sim, { realtime: true }),
      { ...fx.deps, logger: createLogger({ level: 'info', destination: { write: (l) => void lines.push(l) } }) },
      // A schedule that never ticks by itself: polls come from the start and the stream's backfills.
      { scheduler: () => () => undefined, env: passwordEnv() },
    );
    await source.start();
    await waitFor(() => sim!.streams() === 1 && !source!.polling, 30_000, 'log read, stream open');
    sim.addEvents([
      { major: 5, minor: 200, employeeNoString: 'S1' },
      { major: 5, minor: 200, employeeNoString: 'S2' },
      { major: 5, minor: 75, employeeNoString: 'LIVE' },
    ]);
    await waitFor(() => journalKeys(fx!.journal).some((k) => k.startsWith('LIVE@')), 30_000, 'the live pass');
    const said = () => lines.filter((l) => l.includes('neither an authentication pass'));
    expect(said()).toHaveLength(1);
    expect(said()[0]).toContain('terminal reception: events 5/200 carry an employee number');
    // A poll reads the same events from the terminal's log: nothing said again.
    await source.pollNow();
    expect(said()).toHaveLength(1);
  }, 60_000);
});
