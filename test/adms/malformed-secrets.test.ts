import { afterEach, describe, expect, it } from 'vitest';
import { PushStore } from '../../src/journal/push-store.js';
import { loneCrToLf } from '../../src/sources/adms/handler-kit.js';
import { reparseKept } from '../../src/sources/adms/reparse.js';
import { malformedLine, redactSecrets } from '../../src/sources/adms/malformed.js';
import { parseAttlog } from '../../src/sources/adms/attlog.js';
import { attlog, http, startReceiver, terminal } from './harness.js';

/** The receiver of the test under way, stopped after it. */
let r: Awaited<ReturnType<typeof startReceiver>> | undefined;
afterEach(async () => {
  await r?.stop();
  r = undefined;
});

/**
 * A line a push terminal sends that punchgate cannot read is logged, counted in the status and
 * kept raw: a password or comm key in it (a user record of odd firmware, a stranger's probe) is
 * left out of every one of them, not only of the kept copy (found by an adversarial trial).
 */
describe('secrets in lines punchgate cannot read', () => {
  it('leaves the value of every password or key field out, in the forms firmware and probes write', () => {
    const cases: [string, string][] = [
      ['USER PIN=1\tPasswd=99\tName=A', 'USER PIN=1\tPasswd=***\tName=A'],
      ['ComKey=AttlogLeak1 Password=AttlogLeak2', 'ComKey=*** Password=***'],
      ['OPTION Password=first SecondHalf\tX=1', 'OPTION Password=***\tX=1'],
      [
        'time=2026-11-29 08:31:00\tpin=5005\tcomkey=Leak3\tpassword=Leak4',
        'time=2026-11-29 08:31:00\tpin=5005\tcomkey=***\tpassword=***',
      ],
      ['{"pin":"1","passwd":"JsonLeak77"}', '{"pin":"1","passwd":***}'],
      ['Passwd = SpacedLeak88\tPIN=2', 'Passwd = ***\tPIN=2'],
      ['~ComKey=1234&SN=X', '~ComKey=***&SN=X'],
      ['1001\t2026-11-29 08:00:00\t0\t1', '1001\t2026-11-29 08:00:00\t0\t1'],
    ];
    for (const [line, shown] of cases) expect(redactSecrets(line), line).toBe(shown);
    // Left out before the line is cut short: a value cut in half is still left out.
    expect(malformedLine(3, 'x', `WEIRD ${'A'.repeat(30)} Passwd=CutInHalf99`, 40).text).not.toContain('CutIn');
  });

  it('leaves them out of the reason too, which quotes the field it could not read', () => {
    // Found by an adversarial trial: the text was redacted, but the reason (`bad date "Passwd=..."`)
    // carried the value into the log, the journal, the status, /status.json and the page.
    const { malformed } = parseAttlog('1\tPasswd=ReasonLeak55\t0\t1\n2\tComKey=ReasonLeak56\n');
    expect(malformed).toHaveLength(2);
    for (const m of malformed) {
      expect(m.reason).not.toContain('ReasonLeak');
      expect(m.reason).toContain('***');
    }
    expect(malformed[0]!.reason).toBe('bad date "Passwd=***" (expected YYYY-MM-DD HH:MM:SS)');
  });

  it('logs and counts a malformed ATTLOG, OPERLOG and rtlog line without the secrets in it', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', 'CQZ1')] });
    const posts: [string, string][] = [
      ['ATTLOG', 'ComKey=AttlogLeak1 Password=AttlogLeak2'],
      ['OPERLOG', 'OPTION Password=OpPw999x\tComKey=OpCk999x'],
      ['rtlog', 'time=2026-11-29 08:31:00\tpin=5005\tcomkey=RtlogLeak3\tpassword=RtlogLeak4'],
    ];
    for (const [table, line] of posts) {
      const answer = await http(r.url, 'POST', `/iclock/cdata?SN=CQZ1&table=${table}&Stamp=9999`, attlog([line]));
      expect(answer.status, table).toBe(200);
    }
    const logged = r.log.text();
    expect(logged).toContain('malformed ATTLOG line');
    expect(logged).toContain('malformed OPERLOG line');
    expect(logged).toContain('malformed rtlog line');
    for (const secret of ['AttlogLeak1', 'AttlogLeak2', 'OpPw999x', 'OpCk999x', 'RtlogLeak3', 'RtlogLeak4'])
      expect(logged, secret).not.toContain(secret);
    const kept = r.store
      .keptUploads()
      .map((k) => k.body)
      .join('\n');
    expect(kept).toContain('Password=***');
    for (const secret of ['AttlogLeak2', 'OpPw999x', 'RtlogLeak4']) expect(kept).not.toContain(secret);
  });
});

describe('an upload that starts with a UTF-8 byte order mark', () => {
  it('reads its first line as a punch, not as a malformed line', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', 'CQZ1')] });
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(attlog(['1001\t2026-11-29 08:00:00\t0\t1'])),
    ]);
    expect(await http(r.url, 'POST', '/iclock/cdata?SN=CQZ1&table=ATTLOG&Stamp=1', body)).toEqual({
      status: 200,
      body: 'OK:1',
    });
    expect(r.journal.queries.list().map((p) => p.biometricCode)).toEqual(['1001']);
    expect(r.store.keptUploads()).toEqual([]);
  });
});

describe('an upload whose lines end in a lone CR', () => {
  it('reads each line as a punch (lone CR, CRLF and LF alike), none kept raw', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', 'CQZ1')] });
    // Lone CRs between the first three, CRLF and LF after: one upload of old Mac line ends, mixed.
    const body =
      '1001\t2026-11-29 08:00:00\t0\t1\r1002\t2026-11-29 08:01:00\t0\t1\r1003\t2026-11-29 08:02:00\t0\t1\r\n1004\t2026-11-29 08:03:00\t0\t1\n';
    expect(await http(r.url, 'POST', '/iclock/cdata?SN=CQZ1&table=ATTLOG&Stamp=1', body)).toEqual({
      status: 200,
      body: 'OK:4',
    });
    expect(
      r.journal.queries
        .list()
        .map((p) => p.biometricCode)
        .sort(),
    ).toEqual(['1001', '1002', '1003', '1004']);
    expect(r.store.keptUploads()).toEqual([]);
  });

  it('reparse reads an upload kept whole before lone CRs were line ends, and journals each punch once', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', 'CQZ1')] });
    const body = '1001\t2026-11-29 08:00:00\t0\t1\r1002\t2026-11-29 08:01:00\t0\t1';
    // As an older punchgate kept it: one malformed line of the whole upload.
    r.journal.db
      .prepare(
        `INSERT INTO push_kept (terminal, serial, tbl, reason, received_at, lines, bytes, body) VALUES ('lobby', 'CQZ1', 'ATTLOG', 'control character in the line', 0, 1, ?, ?)`,
      )
      .run(body.length, body);
    const store = new PushStore(r.journal.db, r.journal, { now: () => Date.now() });
    expect(reparseKept(store, terminal('lobby', 'CQZ1'))).toMatchObject({ uploads: 1, added: 2, stillKept: 0 });
    expect(
      r.journal.queries
        .list()
        .map((p) => p.biometricCode)
        .sort(),
    ).toEqual(['1001', '1002']);
    expect(reparseKept(store, terminal('lobby', 'CQZ1'))).toMatchObject({ uploads: 0, added: 0 });
  });

  it('turns lone CRs into LF and leaves CRLF and a body without CR as they are', () => {
    expect(loneCrToLf(Buffer.from('a\rb\r\nc\r')).toString()).toBe('a\nb\r\nc\n');
    const plain = Buffer.from('a\nb\n');
    expect(loneCrToLf(plain)).toBe(plain);
  });
});
