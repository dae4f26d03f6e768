import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { activePushNotes } from '../../src/sources/adms/index.js';
import { ALERT } from '../../src/status/index.js';
import { attlog, http, startReceiver, terminal } from './harness.js';

/**
 * An upload sent compressed (`Content-Encoding: gzip`, or `Transfer-Encoding: gzip, chunked`):
 * Node takes chunks apart, nothing else. Found by an adversarial trial against punchgate run: a
 * gzip ATTLOG upload was answered `OK:0`, its binary "kept raw" already mangled into U+FFFD (no
 * reparse could bring the punches back), and the terminal, told OK, forgot them. A terminal's
 * firmware or a proxy between it and the box may compress; so may an attacker aiming at a bomb.
 */
type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SN = 'CQZ7232160001';
const UPLOAD = `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=4711`;
const LINES = ['1001\t2026-11-01 08:00:01\t0\t1\t0', '1002\t2026-11-01 08:00:02\t1\t1\t0'];

describe('ADMS receiver: compressed upload bodies', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  const punches = () => r!.journal.queries.list({ limit: 1000 }).map((p) => `${p.biometricCode}@${p.logTime}`);
  const kept = () => r!.journal.db.prepare('SELECT count(*) AS n FROM push_kept').get() as { n: number };

  it.each([
    ['gzip', { 'Content-Encoding': 'gzip' }, gzipSync],
    ['x-gzip', { 'Content-Encoding': 'x-gzip' }, gzipSync],
    ['deflate (zlib)', { 'Content-Encoding': 'deflate' }, deflateSync],
    ['deflate written bare', { 'Content-Encoding': 'deflate' }, deflateRawSync],
    ['br', { 'Content-Encoding': 'br' }, brotliCompressSync],
    ['gzip in Transfer-Encoding', { 'Transfer-Encoding': 'gzip, chunked' }, gzipSync],
    ['gzip, chunked, no Content-Length', { 'Content-Encoding': 'GZIP', 'Transfer-Encoding': 'chunked' }, gzipSync],
  ] as const)(
    'reads a %s body: every punch journalled once, the stamp kept, nothing kept raw',
    async (_, headers, zip) => {
      r = await startReceiver({ terminals: [terminal('lobby', SN)], notes: true });
      const body = zip(Buffer.from(attlog(LINES)));
      const res = await http(r.url, 'POST', UPLOAD, body, { ...headers });
      expect(res).toEqual({ status: 200, body: 'OK:2' });
      expect(punches().sort()).toEqual(['1001@2026-11-01 08:00:01', '1002@2026-11-01 08:00:02']);
      expect(r.store.stamps('lobby', SN)).toMatchObject({ ATTLOG: '4711' });
      expect(kept().n).toBe(0);
    },
  );

  it('refuses a coding it cannot read, and gzip cut short, never OK: nothing journalled, the stamp unmoved, the admin told; a readable upload ends it', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)], notes: true });
    const zipped = gzipSync(Buffer.from(attlog(LINES)));
    for (const [body, headers] of [
      [Buffer.from('(zstd bytes)'), { 'Content-Encoding': 'zstd' }],
      [Buffer.from('(lzw bytes)'), { 'Content-Encoding': 'compress' }],
      // A body whose gzip ends mid-way (a proxy that cut it, its length told for what it sent):
      // no half line may become a punch.
      [zipped.subarray(0, zipped.length - 12), { 'Content-Encoding': 'gzip' }],
      [gzipSync(gzipSync(gzipSync(Buffer.from(attlog(LINES))))), { 'Content-Encoding': 'gzip, gzip, gzip' }],
    ] as const) {
      const res = await http(r.url, 'POST', UPLOAD, body, { ...headers });
      expect(res.status).toBe(415);
      expect(res.body).toMatch(/^ERROR: body compressed as /);
    }
    expect(punches()).toEqual([]);
    expect(kept().n).toBe(0);
    expect(r.store.stamps('lobby', SN)).toEqual({});
    const notes = activePushNotes(r.journal.sourceState, 'lobby', Date.now());
    expect(notes).toHaveLength(1);
    const alert = ALERT.pushNote('lobby', notes[0]!);
    expect(alert.kind).toBe('push-unreadable-coding');
    expect(alert.cause).toMatch(
      /^terminal lobby: an upload \(ATTLOG\) compressed as "gzip, gzip, gzip" \(Content-Encoding\) was refused: /,
    );
    expect(alert.cause).toMatch(/the terminal keeps it and sends it again/);
    expect(alert.fix).toMatch(/^switch compression off on the terminal/);
    expect(r.log.text()).toMatch(/push terminal lobby: an upload \(ATTLOG\) compressed as \\"zstd\\"/);
    // The terminal sends it again, readable: every punch, and the alert is over.
    expect(await http(r.url, 'POST', UPLOAD, zipped, { 'Content-Encoding': 'gzip' })).toEqual({
      status: 200,
      body: 'OK:2',
    });
    expect(punches()).toHaveLength(2);
    expect(activePushNotes(r.journal.sourceState, 'lobby', Date.now())).toEqual([]);
  });

  it('a gzip bomb (100 MB of zeros in 100 kB) is refused as too large, never held whole', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)], adms: { maxBodyBytes: 1_048_576 }, notes: true });
    const bomb = gzipSync(Buffer.alloc(100 * 1024 * 1024, '1001\t2026-11-01 08:00:01\t0\t1\t0\n'));
    expect(bomb.length).toBeLessThan(1_048_576);
    const before = process.memoryUsage().arrayBuffers;
    const res = await http(r.url, 'POST', UPLOAD, bomb, { 'Content-Encoding': 'gzip' });
    expect(res.status).toBe(413);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(50 * 1024 * 1024);
    expect(punches()).toEqual([]);
    expect(r.store.stamps('lobby', SN)).toEqual({});
    const notes = activePushNotes(r.journal.sourceState, 'lobby', Date.now());
    expect(notes.map((n) => n.topic)).toEqual(['too-large']);
  });
});
