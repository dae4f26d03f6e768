import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { activePushNotes } from '../../src/sources/adms/index.js';
import { ALERT } from '../../src/status/index.js';
import { waitFor } from '../helpers/wait.js';
import { attlog, http, startReceiver, terminal } from './harness.js';

/**
 * An upload whose body HTTP cannot delimit, found by an adversarial trial against punchgate run:
 * - no Content-Length and not chunked (an HTTP/1.0 client, a proxy or firmware that ends the body
 *   by closing): for HTTP the body is empty, so the upload was answered `OK:0` at once (the
 *   terminal, told OK, forgets its punches) and its lines then refused as a request nobody reads;
 * - a Content-Length shorter than the body: the body read cut its last line (`... 08:00` of
 *   `... 08:00:02`, which reads as a punch at 08:00:00) and journalled it, while the terminal got
 *   a 400 for the rest and sent the batch again and again.
 */
type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SN = 'CQZ7232160001';
const UPLOAD = `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=4711`;
const BODY = attlog(['7001\t2026-11-09 08:00:01\t0\t1\t0', '7002\t2026-11-09 08:00:02\t0\t1\t0']);

/** Sends `parts` on one connection, each after the server read the one before; what came back once it closed. */
function raw(port: number, parts: string[]): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    let got = '';
    s.on('data', (d) => (got += d.toString()));
    s.on('error', () => undefined);
    s.on('close', () => resolve(got));
    s.on('connect', () => {
      const next = (i: number) => {
        if (i >= parts.length) return;
        // The next part once this one left (a firmware's headers and its body in two writes).
        s.write(parts[i]!, () => setImmediate(() => next(i + 1)));
      };
      next(0);
      // The server closes (after its answer) or the client does, once it answered.
      const end = setInterval(() => {
        if (/\r\n\r\n/.test(got) && !s.destroyed) {
          clearInterval(end);
          s.end();
        }
      }, 20);
      s.on('close', () => clearInterval(end));
    });
  });
}

/**
 * Sends `first`, waits until the server answered it (its read and its answer went before), then
 * `rest` on the same connection if it is still open: the bytes a short Content-Length left out
 * arrive in a later TCP packet, after the answer. What came back once it closed.
 */
function answeredThenRest(port: number, first: string, rest: string): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    let got = '';
    let sent = false;
    s.on('error', () => undefined);
    s.on('close', () => resolve(got));
    s.on('data', (d) => {
      got += d.toString();
      const m = /\r\nContent-Length: (\d+)\r\n[\s\S]*?\r\n\r\n([\s\S]*)$/i.exec(got);
      if (sent || !m || Buffer.byteLength(m[2]!) < Number(m[1])) return;
      sent = true;
      if (s.writable && !s.destroyed) s.write(rest, () => s.end());
      else s.end();
    });
    s.on('connect', () => s.write(first));
  });
}

describe('ADMS receiver: an upload whose body has no length HTTP can read', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  const punches = () => r!.journal.queries.list({ limit: 1000 }).map((p) => `${p.biometricCode}@${p.logTime}`);

  it.each(['1.1', '1.0'])(
    'HTTP/%s without Content-Length: answered 411 and closed, never OK; nothing journalled; the admin told; an upload with a length ends it',
    async (version) => {
      r = await startReceiver({ terminals: [terminal('lobby', SN)], notes: true });
      const got = await raw(r.port, [`POST ${UPLOAD} HTTP/${version}\r\nHost: gw\r\n\r\n`, BODY]);
      expect(got).toMatch(/^HTTP\/1\.1 411 /);
      expect(got).not.toMatch(/OK:/);
      expect(got).toMatch(/Connection: close/i);
      expect(punches()).toEqual([]);
      expect(r.store.stamps('lobby', SN)).toEqual({});
      // Its lines were never read as a request of their own.
      expect(r.log.text()).not.toMatch(/cannot read as HTTP/);
      const notes = activePushNotes(r.journal.sourceState, 'lobby', Date.now());
      expect(notes).toHaveLength(1);
      const alert = ALERT.pushNote('lobby', notes[0]!);
      expect(alert.kind).toBe('push-no-length');
      expect(alert.cause).toMatch(/^terminal lobby: an upload \(ATTLOG\) came without a Content-Length/);
      expect(alert.fix).toMatch(/proxy/);
      expect(await http(r.url, 'POST', UPLOAD, BODY)).toEqual({ status: 200, body: 'OK:2' });
      expect(punches()).toHaveLength(2);
      expect(activePushNotes(r.journal.sourceState, 'lobby', Date.now())).toEqual([]);
    },
  );

  it('a terminal that shuts its sending side once its upload is sent still gets its OK', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    // Large (read in steps, so its answer comes after the connection's end was read): 12,000 punches.
    const lines = Array.from({ length: 12_000 }, (_, i) => `${10_000 + i}\t2026-11-09 08:00:01\t0\t1\t0`);
    const body = attlog(lines);
    const got = await new Promise<string>((resolve) => {
      const s = connect({ host: '127.0.0.1', port: r!.port }, () =>
        s.end(
          `POST ${UPLOAD} HTTP/1.1\r\nHost: gw\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        ),
      );
      let out = '';
      s.on('data', (d) => (out += d.toString()));
      s.on('error', () => undefined);
      s.on('close', () => resolve(out));
    });
    expect(got).toMatch(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\nOK:12000$/);
    expect(r.journal.queries.list({ limit: 20_000 })).toHaveLength(12_000);
  });

  it('a command result or a handshake without Content-Length is answered as before', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)], notes: true });
    const got = await raw(r.port, [`POST /iclock/devicecmd?SN=${SN} HTTP/1.1\r\nHost: gw\r\n\r\n`]);
    expect(got).toMatch(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\nOK$/);
  });

  it('a Content-Length shorter than the body: the cut line is no punch, nothing of it journalled, no OK', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)], notes: true });
    // The body as told ends at "7002<TAB>2026-11-09 08:00", a time without seconds punchgate reads.
    const told = BODY.indexOf(':02\t');
    const got = await raw(r.port, [`POST ${UPLOAD} HTTP/1.1\r\nHost: gw\r\nContent-Length: ${told}\r\n\r\n${BODY}`]);
    expect(got).not.toMatch(/OK:/);
    await waitFor(() => r!.log.text().includes('cannot read as HTTP'), 5000, 'the rest refused');
    // Said as what it is, not as the upload's request line written in HTTP punchgate cannot read.
    expect(r.log.lines().map((l) => l.msg)).toContainEqual(
      expect.stringMatching(
        /right after the body of a request \("POST \/iclock\/cdata"\) on the same connection: .*its Content-Length was shorter than the body it sent/,
      ),
    );
    expect(punches()).toEqual([]);
    expect(r.store.stamps('lobby', SN)).toEqual({});
    // The terminal sends it again with its length right: every punch, once.
    expect(await http(r.url, 'POST', UPLOAD, BODY)).toEqual({ status: 200, body: 'OK:2' });
    expect(punches().sort()).toEqual(['7001@2026-11-09 08:00:01', '7002@2026-11-09 08:00:02']);
  });

  it('a Content-Length shorter than the body, the rest in a later packet: the cut last line is no punch, no OK, the admin told', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)], notes: true });
    // The body as told ends at "7002<TAB>2026-11-09 08:00", a time without seconds punchgate reads.
    const told = BODY.indexOf(':02\t');
    const head = `POST ${UPLOAD} HTTP/1.1\r\nHost: gw\r\nContent-Length: ${told}\r\n\r\n`;
    const got = await answeredThenRest(r.port, head + BODY.slice(0, told), BODY.slice(told));
    expect(got).toMatch(/^HTTP\/1\.1 400 /);
    expect(got).not.toMatch(/OK:/);
    expect(got).toMatch(/Connection: close/i);
    expect(punches()).toEqual([]);
    expect(r.store.stamps('lobby', SN)).toEqual({});
    const notes = activePushNotes(r.journal.sourceState, 'lobby', Date.now());
    expect(notes).toHaveLength(1);
    const alert = ALERT.pushNote('lobby', notes[0]!);
    expect(alert.kind).toBe('push-cut-body');
    expect(alert.cause).toMatch(
      /^terminal lobby: an upload \(ATTLOG\) was refused as cut short: its last line "7002\\x092026-11-09 08:00" has no line end and no whole time/,
    );
    expect(alert.fix).toMatch(/Content-Length/);
    // The terminal sends it again with its length right: every punch, once, and the alert ends.
    expect(await http(r.url, 'POST', UPLOAD, BODY)).toEqual({ status: 200, body: 'OK:2' });
    expect(punches().sort()).toEqual(['7001@2026-11-09 08:00:01', '7002@2026-11-09 08:00:02']);
    expect(activePushNotes(r.journal.sourceState, 'lobby', Date.now())).toEqual([]);
  });

  it('a Content-Length shorter than the body, cut in a later field: no punch with its status cut, no OK', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)], notes: true });
    // eSSL's form: every line ends with a TAB after its nine fields (the cut one has eight).
    const body = attlog([
      '7001\t2026-11-09 08:00:01\t0\t1\t0\t\t\t0\t0\t',
      '7002\t2026-11-09 08:00:02\t1\t1\t0\t\t\t0\t0\t',
    ]);
    const told = body.length - 2;
    const head = `POST ${UPLOAD} HTTP/1.1\r\nHost: gw\r\nContent-Length: ${told}\r\n\r\n`;
    const got = await answeredThenRest(r.port, head + body.slice(0, told), body.slice(told));
    expect(got).toMatch(/^HTTP\/1\.1 400 /);
    expect(punches()).toEqual([]);
    expect(await http(r.url, 'POST', UPLOAD, body)).toEqual({ status: 200, body: 'OK:2' });
  });

  it('an explicit Content-Length: 0, the body in a later packet: never answered OK, nothing journalled', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)], notes: true });
    const head = `POST ${UPLOAD} HTTP/1.1\r\nHost: gw\r\nContent-Length: 0\r\n\r\n`;
    const got = await answeredThenRest(r.port, head, BODY);
    expect(got).toMatch(/^HTTP\/1\.1 400 /);
    expect(got).not.toMatch(/OK:/);
    expect(r.store.stamps('lobby', SN)).toEqual({});
    const notes = activePushNotes(r.journal.sourceState, 'lobby', Date.now());
    expect(ALERT.pushNote('lobby', notes[0]!).cause).toMatch(/it came empty \(Content-Length: 0\)/);
    expect(await http(r.url, 'POST', UPLOAD, BODY)).toEqual({ status: 200, body: 'OK:2' });
  });
});
