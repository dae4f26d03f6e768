import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { SimEvent } from '../../src/sim/hikvision/index.js';
import { RssSampler } from '../../bench/lib/rss.js';
import { keys, spawnDaemon } from '../daemon/stack.js';
import { waitFor } from '../helpers/wait.js';
import { hikDaemonStack } from './daemon-stack.js';
import { expectedPunches, PASSWORD } from './helpers.js';
import { startSimProcess } from './sim-process.js';

/**
 * The Hikvision firmware seen in the field, all at once (`punchgate sim hikvision --real-firmware`:
 * JSON laid out with TABs, deviceInfo in XML, endSerialNo above 999,999,999 refused while
 * 4,294,967,295 is advertised, the alert stream replaying the whole stored log on every
 * reconnect with bare-LF part heads, rows with pictureURL/FaceRect/mask/cardType/userType, 20-digit
 * cards, door events "invalid", 5/9 rows with a card of nobody) against a real `punchgate run`,
 * counting at the simulated HRMS: each pass delivered once, at the terminal's wall clock, and
 * nothing else. And what the replay costs the daemon: its memory (from /proc) and its journal
 * writes from the stream (one log line each).
 */
const MB = 1024 * 1024;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

describe('punchgate run with real Hikvision firmware', () => {
  it('every pass once at the wall clock, nothing else; a replay of 25,000 stored events per reconnect costs no burst of writes', async () => {
    const sim = await startSimProcess(
      ['--real-firmware', '--events', '8000', '--users', '50', '--utc-offset', '+05:30', '--seed', '5'],
      PASSWORD,
    );
    children.push(sim.child);
    expect(sim.out()).toMatch(
      /endSerialNo up to 999999999, XML deviceInfo, JSON tabs, stream replays its log, bare-LF part heads, real-firmware rows/,
    );
    const events = async () => (await sim.admin<{ events: SimEvent[] }>('GET', 'events')).events;
    const state = () => sim.admin<{ streams: number; streamsOpened: number }>('GET', 'state');
    const all = await events();
    expect(all.length).toBeGreaterThan(20_000);
    expect(all.some((e) => e.minor === 9 && e.cardNo?.length === 20 && !e.employeeNoString)).toBe(true);

    // Polled every 20 s: the stream and its backfills do the rest.
    const s = await hikDaemonStack(sim.url, { terminal: { schedule: '*/20 * * * * *' } });
    try {
      const d = spawnDaemon(s.configPath);
      children.push(d.child);
      const delivered = () => keys(s.hrms.attendance());
      await waitFor(() => delivered().length >= 8000, 180_000, 'the stored passes delivered').catch((e: Error) => {
        throw new Error(`${e.message}: ${delivered().length}\n${d.output().slice(-3000)}`);
      });
      await waitFor(async () => (await state()).streams === 1, 30_000, 'the alert stream open');
      const rss = new RssSampler(d.child.pid!).start();

      const live = async (tag: string) => {
        for (let i = 0; i < 3; i++) {
          await sim.admin('POST', 'events', {
            events: [
              { major: 5, minor: 75, employeeNoString: `${tag}${i}`, attendanceStatus: 'checkIn', doorNo: 1 },
              { major: 5, minor: 21, doorNo: 1, currentVerifyMode: 'invalid' },
            ],
          });
          await new Promise((r) => setTimeout(r, 300));
        }
      };
      await live('LIVE-A');
      // Two reconnects: each time the device sends its whole stored log again before anything new.
      for (let i = 0; i < 2; i++) {
        const { streamsOpened } = await state();
        await sim.admin('POST', 'drop-streams');
        await waitFor(
          async () => (await state()).streamsOpened > streamsOpened && (await state()).streams === 1,
          60_000,
          'the stream back',
        ).catch((e: Error) => {
          throw new Error(`${e.message}\n${d.output().slice(-4000)}`);
        });
        await live(`LIVE-${i}`);
      }
      const expected = expectedPunches(await events());
      await waitFor(() => delivered().length >= expected.length, 120_000, 'every pass delivered').catch((e: Error) => {
        throw new Error(`${e.message}: ${delivered().length} of ${expected.length}\n${d.output().slice(-3000)}`);
      });
      // The replays were read through (the daemon logs each at its end).
      await sim.admin('POST', 'drop-streams');
      await waitFor(() => (d.output().match(/replayed stored events/g) ?? []).length >= 3, 30_000, 'the replays done');
      const memory = rss.stop();

      // Each pass once, at the terminal's wall clock; no door event, no 5/9 card of nobody.
      expect(delivered()).toEqual(expected);
      expect(s.hrms.attendance()).toHaveLength(expected.length);
      expect(delivered().filter((k) => k.startsWith('card:'))).toEqual([]);
      // The stream wrote only what happened now: at most one transaction per live pass, none for the 3 × 25,000 replayed.
      const streamWrites = (d.output().match(/"msg":"terminal reception: received \d+ punch/g) ?? []).length;
      expect(streamWrites).toBeLessThanOrEqual(9);
      expect(memory.hwm).toBeLessThan(160 * MB);
      expect(
        d
          .output()
          .split('\n')
          .filter((l) => l.includes('"level":50')),
      ).toEqual([]);
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
    } finally {
      await s.stop();
    }
  }, 420_000);
});
