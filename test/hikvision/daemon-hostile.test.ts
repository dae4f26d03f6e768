import { afterEach, describe, expect, it } from 'vitest';
import { procCpuMs, procMemory } from '../../bench/lib/rss.js';
import { BAD_EVENT, type HikvisionSim } from '../../src/sim/hikvision/index.js';
import { keys, spawnDaemon, unitEnvironment, type DaemonProcess } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { hikDaemonStack } from './daemon-stack.js';
import { expectedPunches, searches, startSim } from './helpers.js';

/**
 * Hostile Hikvision devices against a real `punchgate run` (issue 23): a search it does not end,
 * pages of 15 MB, an alert-stream part that never ends, one event numbered 2,999,999,999 and dated
 * 2037. Counted: what reached the HRMS, what `punchgate status` says, the daemon's memory and CPU
 * (from /proc) and the requests it made.
 */
const MB = 1024 * 1024;
let sim: HikvisionSim | undefined;
let stack: Awaited<ReturnType<typeof hikDaemonStack>> | undefined;
let daemon: DaemonProcess | undefined;
afterEach(async () => {
  if (daemon?.child.exitCode === null) daemon.child.kill('SIGKILL');
  await sim?.stop();
  await stack?.stop();
  sim = stack = daemon = undefined;
});

async function run(s: HikvisionSim, terminal: Record<string, unknown> = {}) {
  stack = await hikDaemonStack(s.url, { terminal: { realtime: false, ...terminal } });
  // A hostile device's failed polls are polled again at the next tick, not after 2, 4, 8 and 16
  // (the backoff is proven in test/sources/schedule.test.ts; here, what its answers do is).
  daemon = spawnDaemon(stack.configPath, [], { PUNCHGATE_TEST_MAX_SKIPPED_TICKS: '0' });
  return { stack, daemon };
}

const status = async () =>
  (await runPunchgate(['status', '--config', stack!.configPath], { env: unitEnvironment() })).stdout;
const delivered = () => keys(stack!.hrms.attendance());
const hwm = () => procMemory(daemon!.child.pid!)!.hwm;

/** A pass now and then, as a site works, while `fn` runs. */
async function whileSiteWorks(s: HikvisionSim, fn: () => Promise<void>): Promise<void> {
  let n = 0;
  const timer = setInterval(() => {
    n++;
    s.addEvents([
      { major: 5, minor: n % 2 ? 75 : 38, employeeNoString: `W${n}`, attendanceStatus: 'checkIn' },
      { major: 5, minor: 21, doorNo: 1 },
    ]);
  }, 400);
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
}

describe('punchgate run against hostile Hikvision devices', () => {
  it('a device answering MORE for ever: each poll ends after a page, every pass arrives once, the status names it', async () => {
    sim = await startSim(200, { firmware: { searchFault: 'repeat' } });
    const { daemon: d } = await run(sim);
    await whileSiteWorks(sim, async () => {
      await waitFor(async () => /! terminal reception: a poll ended early: /.test(await status()), 30_000, 'the alert');
      // Three more polls start while passes keep coming (a condition, not a fixed wait).
      const polls = () => searches(sim!).filter((c) => c.searchResultPosition === 0).length;
      const before = polls();
      await waitFor(() => polls() >= before + 3, 30_000, 'three more polls');
    });
    const expected = expectedPunches(sim.events());
    await waitFor(() => delivered().length >= expected.length, 30_000, 'every pass delivered');
    expect(delivered()).toEqual(expected);
    expect(stack!.hrms.attendance()).toHaveLength(expected.length);
    // Bounded: the first poll's pages, then at most a page and the one it repeated for each search.
    const all = searches(sim);
    const started = all.filter((c) => c.searchResultPosition === 0).length;
    expect(all.length).toBeLessThanOrEqual(Math.ceil(sim.events().length / 30) + 3 * started);
    expect(hwm()).toBeLessThan(150 * MB);
    d.child.kill('SIGTERM');
    expect(await d.exited).toEqual({ code: 0, signal: null });
  }, 120_000);

  it('pages of 15 MB: refused after 2 MB, the memory stays put, the status names the terminal; mended, all arrives', async () => {
    sim = await startSim(30, { firmware: { searchFault: 'huge', hugePageBytes: 15 * MB } });
    const { daemon: d } = await run(sim);
    await waitFor(() => searches(sim!).length >= 5, 30_000, 'five polls refused');
    expect(await status()).toMatch(
      /! terminal reception: a poll ended early: \S+ sent an answer of more than 2048 kB to \/ISAPI\/AccessControl\/AcsEvent .*restart the terminal/,
    );
    expect(delivered()).toEqual([]);
    expect(hwm()).toBeLessThan(140 * MB);
    sim.setFirmware({ searchFault: null });
    await waitFor(() => delivered().length === 30, 30_000, 'the passes delivered once mended');
    expect(delivered()).toEqual(expectedPunches(sim.events()));
    await waitFor(async () => !/a poll ended early/.test(await status()), 10_000, 'the alert gone');
    d.child.kill('SIGTERM');
    expect(await d.exited).toEqual({ code: 0, signal: null });
  }, 120_000);

  it('an alert-stream part that never ends: reconnects back off, CPU and memory stay low, polls go on, the status says it', async () => {
    sim = await startSim(20, { firmware: { streamFault: 'endless-part' } });
    const { daemon: d } = await run(sim, { realtime: true });
    await waitFor(() => delivered().length === 20 && sim!.streamsOpened() >= 1, 30_000, 'log read, stream tried');
    const pid = d.child.pid!;
    const opened0 = sim.streamsOpened();
    const cpu0 = procCpuMs(pid)!;
    const t0 = Date.now();
    await whileSiteWorks(sim, () => new Promise((r) => setTimeout(r, 12_000)));
    const cpu = procCpuMs(pid)! - cpu0;
    const window = Date.now() - t0;
    // 1, 2, 4, 8 s between tries: 4 or 5 in 12 s (a backoff reset at every open: one a second).
    expect(sim.streamsOpened() - opened0).toBeLessThanOrEqual(5);
    expect(cpu / window).toBeLessThan(0.3);
    expect(hwm()).toBeLessThan(150 * MB);
    expect(await status()).toMatch(
      /! terminal reception: its alert stream sent a part of more than 4 MB without an end: punchgate dropped the stream and reconnects less and less often/,
    );
    const expected = expectedPunches(sim.events());
    await waitFor(() => delivered().length >= expected.length, 30_000, 'the passes of the window delivered');
    expect(delivered()).toEqual(expected);
    d.child.kill('SIGTERM');
    expect(await d.exited).toEqual({ code: 0, signal: null });
  }, 120_000);

  it('one event numbered 2,999,999,999 and dated 2037: quarantined, never delivered; the next six passes are', async () => {
    sim = await startSim(20);
    sim.addEvents([{ ...BAD_EVENT, time: `${BAD_EVENT.time}+05:30` }]);
    const { daemon: d } = await run(sim, { realtime: true });
    await waitFor(() => delivered().length === 20, 30_000, 'the first twenty delivered');
    for (let i = 0; i < 6; i++) {
      sim.addEvents([{ major: 5, minor: 75, employeeNoString: `AFTER${i}` }]);
      await new Promise((r) => setTimeout(r, 300));
    }
    const expected = expectedPunches(sim.events()).filter((k) => !k.includes('@2037'));
    expect(expected).toHaveLength(26);
    await waitFor(() => delivered().length === 26, 30_000, 'the six after it');
    // Two more polls: the bad one is read again, never sent.
    const polled = searches(sim).filter((c) => c.searchResultPosition === 0).length;
    await waitFor(
      () => searches(sim!).filter((c) => c.searchResultPosition === 0).length >= polled + 2,
      30_000,
      'two more polls',
    );
    expect(delivered()).toEqual(expected);
    const text = await status();
    expect(text).toMatch(
      /! terminal reception: 1 event numbered or dated implausibly \(event 2999999999 of 2037-06-01 08:00:00: numbered far beyond the events before it and dated after the terminal.s own clock \([^)]*\)\): read \(a pass with an impossible time is quarantined\), but the read position stays below it/,
    );
    expect(text).toMatch(/1 punch quarantined/);
    d.child.kill('SIGTERM');
    expect(await d.exited).toEqual({ code: 0, signal: null });
  }, 120_000);
});
