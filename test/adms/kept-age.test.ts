import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { buildStatus } from '../../src/status/index.js';
import { fakeClock } from '../helpers/tmp.js';
import { http, startReceiver, terminal } from './harness.js';

const SN = 'AGE0001';
const DAY = 86_400_000;
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * The age bound of kept uploads (adms.keptUploads.maxAgeDays) holds when no upload arrives: it
 * was kept only inside an upload's commit, so once a terminal stopped sending what punchgate
 * cannot read, its old bodies stayed for ever.
 */
describe('kept push uploads: the age bound without new uploads', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('drops a body older than maxAgeDays at the receiver tick, counts it, keeps a younger one and the byte total right', async () => {
    const clock = fakeClock();
    r = await startReceiver({
      clock,
      terminals: [terminal('gate', SN)],
      adms: { keptUploads: { maxBytes: 64 * 1024, maxAgeDays: 1 } },
    });
    const body = (i: number) => `mystery id=${i}\tdata=${'x'.repeat(30_000)}`;
    const post = (i: number) => http(r!.url, 'POST', `/iclock/cdata?SN=${SN}&table=mystery`, body(i));
    expect(await post(1)).toEqual({ status: 200, body: 'OK' });
    clock.advance(DAY / 2);
    expect(await post(2)).toEqual({ status: 200, body: 'OK' });
    // The first is past the day, the second within it; nothing more comes.
    clock.advance(DAY / 2 + 60_000);
    await vi.waitFor(() => expect(r!.log.text()).toContain('kept push upload(s) older than'), {
      timeout: 3000,
      interval: 20,
    });
    expect(r.store.keptUploads('gate').map((k) => k.body)).toEqual([body(2)]);
    expect(r.store.keptCounts()).toEqual([
      expect.objectContaining({ table: 'mystery', uploads: 2, held: 1, dropped: 1 }),
    ]);
    expect(r.log.lines().find((l) => String(l.msg).includes('older than'))).toMatchObject({
      dropped: 1,
      maxAgeDays: 1,
      msg: '1 kept push upload(s) older than adms.keptUploads.maxAgeDays (1 day) dropped, counted as dropped in the status',
    });

    // The status says so.
    const config = parseConfig(
      {
        site: 'adms',
        journal: { path: r.tmp.path('journal.db') },
        hrms: { baseUrl: 'https://hr.example.com' },
        adms: { listen: '127.0.0.1:0', keptUploads: { maxBytes: 64 * 1024, maxAgeDays: 1 } },
        terminals: [{ name: 'gate', kind: 'adms', serial: SN }],
      },
      r.tmp.dir,
    );
    const status = buildStatus(r.journal, config, clock.now());
    expect(status.terminals.find((t) => t.name === 'gate')!.push!.kept).toEqual([
      expect.objectContaining({ table: 'mystery', uploads: 2, held: 1, dropped: 1 }),
    ]);

    // The receiver's running total of kept bytes lost the dropped body: a third body fits beside
    // the second within 64 KiB (a total still counting the first would drop the second).
    expect(await post(3)).toEqual({ status: 200, body: 'OK' });
    expect(r.store.keptUploads('gate').map((k) => k.body)).toEqual([body(2), body(3)]);
    expect(r.store.keptCounts()[0]).toMatchObject({ held: 2, dropped: 1 });

    // The status says why it was dropped: its age (it said "to stay within adms.keptUploads", as
    // for a drop for room, and the admin raised maxBytes).
    const kept = () => buildStatus(r!.journal, config, clock.now()).alertItems.find((a) => a.kind === 'push-kept');
    expect(kept()?.cause).toContain(
      '2 kept raw in the journal, 1 more dropped for their age (older than adms.keptUploads.maxAgeDays)',
    );
    expect(kept()?.cause).not.toContain('to stay within');
    // A fourth body is past 64 KiB with the others: the oldest goes for room, said apart.
    expect(await post(4)).toEqual({ status: 200, body: 'OK' });
    expect(r.store.keptCounts()[0]).toMatchObject({ held: 2, dropped: 2, droppedOld: 1 });
    expect(kept()?.cause).toContain(
      '2 kept raw in the journal, 2 more dropped: 1 older than adms.keptUploads.maxAgeDays, 1 to stay within adms.keptUploads.maxBytes',
    );
  });

  it('drops many old bodies in bounded steps, all of them, and says it once', async () => {
    const clock = fakeClock();
    r = await startReceiver({
      clock,
      terminals: [terminal('gate', SN)],
      adms: { keptUploads: { maxBytes: 64 * 1024 * 1024, maxAgeDays: 2 } },
    });
    // 450 bodies kept (in one commit, for speed), more than two steps' worth.
    r.store.commitRecords(
      { terminal: 'gate', serial: SN, table: 'mystery', stamp: null, at: clock.now() },
      {
        kept: Array.from({ length: 450 }, (_, i) => ({
          table: 'mystery',
          reason: 'table mystery',
          body: `mystery id=${i}`,
          lines: 1,
        })),
      },
    );
    clock.advance(3 * DAY);
    await vi.waitFor(() => expect(r!.log.text()).toContain('kept push upload(s) older than'), {
      timeout: 3000,
      interval: 20,
    });
    expect(r.store.keptUploads('gate')).toEqual([]);
    expect(r.store.keptCounts()[0]).toMatchObject({ held: 0, dropped: 450 });
    expect(r.log.lines().filter((l) => String(l.msg).includes('older than'))).toEqual([
      expect.objectContaining({ dropped: 450 }),
    ]);
  });
});
