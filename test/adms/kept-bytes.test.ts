import { afterEach, describe, expect, it } from 'vitest';
import { reparseKept } from '../../src/sources/adms/reparse.js';
import { http, startReceiver, terminal } from './harness.js';

/**
 * Lines kept raw that were not UTF-8 (a name in GBK or latin1 where the PIN goes) were stored as
 * their UTF-8 reading, every such byte U+FFFD for good: no reparse, however it learnt the line's
 * form, could read the bytes the terminal sent. Now they are kept as their bytes (kept.ts).
 */
type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SN = 'CQZ7232160002';
// "张三" in GBK, "José" in latin1: neither is UTF-8.
const GBK = Buffer.concat([Buffer.from([0xd5, 0xc5, 0xc8, 0xfd]), Buffer.from('\t2026-11-30 08:06:07\t0\t1')]);
const LATIN1 = Buffer.from('Jos\u00e9    2026-11-30 08:07:08    0    1', 'latin1');
const UTF8 = Buffer.from('Zoë    2026-11-30 08:08:09    0    1');
/** The bytes a kept upload holds, as the journal gives it back. */
const bytesOf = (k: { body: string; latin1?: true }) => Buffer.from(k.body, k.latin1 ? 'latin1' : 'utf8');
const lines = (...l: Buffer[]) => Buffer.concat(l.flatMap((b, i) => (i === 0 ? [b] : [Buffer.from('\n'), b])));

describe('lines kept raw keep the bytes the terminal sent', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('a GBK and a latin1 name line of an ATTLOG upload: kept byte for byte, and so after a reparse', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const body = Buffer.concat([
      Buffer.from('1001\t2026-11-30 08:01:02\t0\t1\n'),
      lines(GBK, LATIN1),
      Buffer.from('\n'),
    ]);
    expect(await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=1`, body)).toEqual({
      status: 200,
      body: 'OK:1',
    });
    const [kept] = r.store.keptUploads();
    expect(kept!.lines).toBe(2);
    expect(bytesOf(kept!).equals(lines(GBK, LATIN1))).toBe(true);
    // Nothing in them this punchgate reads: they stay kept, rewritten as they were.
    expect(reparseKept(r.store, terminal('lobby', SN))).toMatchObject({ uploads: 1, added: 0, stillKept: 2 });
    expect(bytesOf(r.store.keptUploads()[0]!).equals(lines(GBK, LATIN1))).toBe(true);
  });

  it('an upload of a table punchgate does not read, with a UTF-8 and a GBK line: its bytes', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const body = lines(UTF8, GBK);
    expect((await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=NEWTABLE&Stamp=1`, body)).status).toBe(200);
    expect(bytesOf(r.store.keptUploads()[0]!).equals(body)).toBe(true);
  });

  it('a reparse that reads some lines of a kept upload keeps the rest byte for byte', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    // As an earlier punchgate kept them: a line it did not read (a time with a T) beside a GBK one.
    const body = lines(Buffer.from('1203\t2024-05-06T08:03:04\t1\t1'), GBK);
    r.store.commitRecords(
      { terminal: 'lobby', serial: SN, table: 'ATTLOG', stamp: null, at: Date.now() },
      {
        kept: [{ table: 'ATTLOG', reason: 'line 1: bad date', body: body.toString('latin1'), lines: 2, latin1: true }],
        keptBounds: { maxBytes: 1_000_000, maxAgeMs: 86_400_000 },
      },
    );
    expect(reparseKept(r.store, terminal('lobby', SN))).toMatchObject({ uploads: 1, added: 1, stillKept: 1 });
    const rest = r.store.keptUploads();
    expect(rest).toHaveLength(1);
    expect(bytesOf(rest[0]!).equals(GBK)).toBe(true);
    expect(r.journal.queries.list().map((p) => p.biometricCode)).toEqual(['1203']);
  });

  it('an rtlog (Security PUSH) row that cannot be read, with a GBK PIN: kept byte for byte', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const bad = Buffer.concat([
      Buffer.from('time=2026-11-30 09:00:07\tpin='),
      GBK.subarray(0, 4),
      Buffer.from('\tevent='),
    ]);
    const body = lines(Buffer.from('time=2026-11-30 09:00:05\tpin=701\tevent=0\tverifytype=3\tinoutstatus=1'), bad);
    expect(await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=rtlog`, body)).toEqual({ status: 200, body: 'OK' });
    const kept = r.store.keptUploads();
    expect(kept).toHaveLength(1);
    expect(bytesOf(kept[0]!).equals(bad)).toBe(true);
  });

  it('UTF-8 lines are kept as text, as before', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=NEWTABLE&Stamp=1`, UTF8);
    const [kept] = r.store.keptUploads();
    expect(kept!.body).toBe('Zoë    2026-11-30 08:08:09    0    1');
    expect(kept!.latin1).toBeUndefined();
  });
});
