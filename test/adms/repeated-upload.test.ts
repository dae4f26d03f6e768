import { afterEach, describe, expect, it } from 'vitest';
import { activePushNotes } from '../../src/sources/adms/index.js';
import { SAME_UPLOAD_REPEATS } from '../../src/sources/adms/repeats.js';
import { ALERT } from '../../src/status/index.js';
import { attlog, http, startReceiver, terminal } from './harness.js';

/**
 * A terminal stuck on one upload: it sends the same ATTLOG batch again and again (it does not take
 * the answer as its acknowledgement, or never gets it), every punch of it a duplicate. Found by an
 * adversarial trial (one terminal retrying one upload hundreds of times a second against punchgate
 * run): the journal stayed right, but nothing said it, and the terminal's later punches waited on
 * it while it showed online and "ok".
 */
type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SN = 'CQZ7232160001';
const UPLOAD = `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=4711`;
const BODY = attlog(['7001\t2026-11-09 08:00:01\t0\t1\t0', '7002\t2026-11-09 08:00:02\t0\t1\t0']);

describe('ADMS receiver: a terminal that sends the same upload again and again', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  const notes = () => activePushNotes(r!.journal.sourceState, 'lobby', Date.now());
  const said = () => r!.log.lines().filter((l) => String(l.msg).includes('sends the same ATTLOG upload'));

  it('is said once it came 10 times in a row, with the fix; another upload ends it; every punch journalled once', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)], notes: true });
    for (let i = 1; i < SAME_UPLOAD_REPEATS; i++)
      expect(await http(r.url, 'POST', UPLOAD, BODY)).toEqual({ status: 200, body: 'OK:2' });
    // A batch sent a few times (answers lost on a flaky link) is no alert.
    expect(notes()).toEqual([]);
    for (let i = 0; i < 5; i++) await http(r.url, 'POST', UPLOAD, BODY);
    expect(notes()).toHaveLength(1);
    const alert = ALERT.pushNote('lobby', notes()[0]!);
    expect(alert.kind).toBe('push-repeats');
    expect(alert.cause).toMatch(
      /^terminal lobby: sends the same ATTLOG upload \(2 punches\) again and again, 10 times in a row since .*, each already journalled and answered "OK:2": it does not take that answer as its acknowledgement \(or never gets it\), so its later punches wait on it/,
    );
    expect(alert.fix).toMatch(/set pushDialect: '2.0.1' for lobby .* and reload/);
    expect(said()).toHaveLength(1);
    expect(r.journal.queries.list({ limit: 100 })).toHaveLength(2);
    // The terminal moves on: its next upload ends the alert.
    const next = attlog(['7003\t2026-11-09 08:00:03\t0\t1\t0']);
    expect(await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=4712`, next)).toEqual({
      status: 200,
      body: 'OK:1',
    });
    expect(notes()).toEqual([]);
    expect(r.journal.queries.list({ limit: 100 })).toHaveLength(3);
  });

  it('a terminal answered as pushDialect says is told to remove it', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN, { pushDialect: '2.0.1' })], notes: true });
    for (let i = 0; i < SAME_UPLOAD_REPEATS; i++)
      expect(await http(r.url, 'POST', UPLOAD, BODY)).toEqual({ status: 200, body: 'OK' });
    const alert = ALERT.pushNote('lobby', notes()[0]!);
    expect(alert.cause).toMatch(/answered "OK"/);
    expect(alert.fix).toMatch(/^remove pushDialect: '2.0.1' from lobby/);
  });

  it('a terminal whose repeats bring new punches each time (a growing batch) is no alert', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)], notes: true });
    const lines: string[] = [];
    for (let i = 0; i < SAME_UPLOAD_REPEATS + 2; i++) {
      lines.push(`${8000 + i}\t2026-11-09 08:00:01\t0\t1\t0`);
      await http(r.url, 'POST', UPLOAD, attlog(lines));
    }
    expect(notes()).toEqual([]);
  });
});
