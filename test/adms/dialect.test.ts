/**
 * The push receiver's two dialects of the attendance protocol (issue 31) and query answers on
 * querydata, in this process against a real journal. The PUSH 2.0.1 exchange follows the 2.0.1
 * communication protocol document as ZKTeco's own iclock server answers it (a handshake without
 * `pushver` gets `Stamp=`, `OpStamp=`, `PhotoStamp=`, a bit-string TransFlag; uploads `OK`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { dialectOf } from '../../src/sources/adms/options.js';
import { waitFor } from '../helpers/wait.js';
import { attlog, http, startReceiver, terminal } from './harness.js';

const SN = 'A6HK182460213';
const batch = attlog(['1001\t2026-11-05 08:00:00\t0\t1\t0', '1002\t2026-11-05 08:00:01\t1\t1\t0']);

describe('push dialects', () => {
  let r: Awaited<ReturnType<typeof startReceiver>> | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('knows PUSH 2.0.1 by a missing pushver or one below 2.2', () => {
    expect(dialectOf(undefined)).toBe('2.0.1');
    expect(dialectOf('')).toBe('2.0.1');
    expect(dialectOf('2.0.1')).toBe('2.0.1');
    expect(dialectOf('2.1.9')).toBe('2.0.1');
    expect(dialectOf('2.2.14')).toBe('current');
    expect(dialectOf('2.4.1')).toBe('current');
    expect(dialectOf('3.1.2')).toBe('current');
  });

  it('a handshake without pushver gets the 2.0.1 option block, and its uploads a bare OK', async () => {
    r = await startReceiver({ terminals: [terminal('old', SN)] });
    const hello = await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all`);
    expect(hello.status).toBe(200);
    const lines = hello.body.trim().split('\n');
    expect(lines[0]).toBe(`GET OPTION FROM: ${SN}`);
    expect(lines).toContain('Stamp=0');
    expect(lines).toContain('OpStamp=0');
    expect(lines).toContain('PhotoStamp=0');
    expect(lines).toContain('TransFlag=1101100000');
    expect(hello.body).not.toMatch(/ATTLOGStamp|TransData|ServerVer/);
    expect(await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=2`, batch)).toEqual({
      status: 200,
      body: 'OK',
    });
    expect(r.journal.queries.list().map((p) => [p.biometricCode, p.punchState])).toEqual([
      ['1001', 0],
      ['1002', 1],
    ]);
    // The stamp comes back under its old name.
    expect((await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all`)).body).toContain('\nStamp=2\n');
    // pushver=2.0.1 says the same.
    expect((await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=2.0.1`)).body).toContain(
      '\nStamp=2\n',
    );
  });

  it('a newer handshake keeps the newer dialect; the same terminal upgraded is answered anew', async () => {
    r = await startReceiver({ terminals: [terminal('new', SN)] });
    const hello = await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=2.4.1`);
    expect(hello.body).toContain('\nATTLOGStamp=0\n');
    expect(hello.body).toContain('\nTransFlag=TransData AttLog\tOpLog\tEnrollUser\tChgUser\n');
    expect(hello.body).not.toMatch(/\nStamp=/);
    expect((await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=2`, batch)).body).toBe('OK:2');
    // Downgraded to 2.0.1 firmware: its handshake says so, and its uploads are answered so.
    await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all`);
    expect((await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=2`, batch)).body).toBe('OK');
  });

  it('pushDialect in the config wins over the handshake', async () => {
    r = await startReceiver({
      terminals: [
        terminal('old', SN, { pushDialect: '2.0.1' }),
        terminal('new', 'NEW0001', { pushDialect: 'current' }),
      ],
    });
    expect((await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=2.4.1`)).body).toContain(
      '\nStamp=0\n',
    );
    expect((await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=2`, batch)).body).toBe('OK');
    expect((await http(r.url, 'GET', `/iclock/cdata?SN=NEW0001&options=all`)).body).toContain('\nATTLOGStamp=0\n');
    expect((await http(r.url, 'POST', `/iclock/cdata?SN=NEW0001&table=ATTLOG&Stamp=2`, batch)).body).toBe('OK:2');
  });

  it('a terminal that shook hands before a restart is answered in its dialect after it', async () => {
    r = await startReceiver({ terminals: [terminal('old', SN)] });
    await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all`);
    // Registrations are written every few seconds (RegistrationBook.flush): wait for this one.
    await waitFor(() => r!.store.registration('old', SN)?.facts.PushDialect === '2.0.1', 20_000, 'dialect kept');
    const dir = r.tmp;
    await r.stop(true);
    r = await startReceiver({ terminals: [terminal('old', SN)], dir });
    expect((await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=2`, batch)).body).toBe('OK');
  });

  it('a users query answered on querydata leaves an attendance terminal in the attendance protocol', async () => {
    // Found by an adversarial trial: the answer's tabledata made the receiver take the terminal for
    // Security PUSH; its next handshake got a bare OK (no stamps, no TransFlag) and it uploaded nothing more.
    r = await startReceiver({ terminals: [terminal('a1', SN)] });
    const hello = `/iclock/cdata?SN=${SN}&options=all&pushver=2.4.1`;
    expect((await http(r.url, 'GET', hello)).body).toContain('TransFlag=');
    const answer = await http(
      r.url,
      'POST',
      `/iclock/querydata?SN=${SN}&type=tabledata&tablename=user&cmdid=5&count=1`,
      'user uid=1\tpin=42\tname=Ann\n',
    );
    expect(answer.status).toBe(200);
    const again = await http(r.url, 'GET', hello);
    expect(again.body).toContain('TransFlag=');
    expect(again.body).toContain('ATTLOGStamp=');
    expect(await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=2`, batch)).toEqual({
      status: 200,
      body: 'OK:2',
    });
    expect(r.journal.queries.list()).toHaveLength(2);
  });

  it('a terminal taken for Security PUSH by an upload alone is answered as attendance again when its handshake says pushver 2.x', async () => {
    // An earlier punchgate took a query answer for Security PUSH, and the terminal stopped
    // uploading: the handshake of attendance firmware now wins over that guess, and is remembered.
    r = await startReceiver({ terminals: [terminal('a1', SN)] });
    await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=2.4.1`);
    // Uploads only Security PUSH sends mark it so (rtlog), as the old guess did.
    await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=rtlog`, 'time=2026-11-05 08:00:00\tpin=1\tevent=0\n');
    expect((await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all`)).body).not.toContain('TransFlag=');
    const hello = await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=2.4.1`);
    expect(hello.body).toContain('TransFlag=');
    // Remembered: a handshake without pushver is answered alike.
    expect((await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all`)).body).toContain('TransFlag=');
    // A Security PUSH handshake (pushver 3.x) of a registered device is not touched by this.
    expect(
      (await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=3.1.2&DeviceType=acc`)).body,
    ).not.toContain('TransFlag=');
  });

  it('querydata with cmdid settles the command from the trusted address only', async () => {
    r = await startReceiver({ terminals: [terminal('a1', SN)] });
    // The terminal's address is trusted at its first contact.
    await http(r.url, 'GET', `/iclock/cdata?SN=${SN}&options=all&pushver=2.4.1`);
    const q = r.store.enqueue('a1', 'DATA QUERY USERINFO').command;
    const other = r.store.enqueue(
      'a1',
      'DATA QUERY ATTLOG StartTime=2026-11-01 00:00:00\tEndTime=2026-11-02 00:00:00',
    ).command;
    const taken = await http(r.url, 'GET', `/iclock/getrequest?SN=${SN}`);
    expect(taken.body).toContain(`C:${q.id}:DATA QUERY USERINFO`);
    const rows = 'user uid=1\tcardno=\tpin=1001\tpassword=\tgroup=1\tname=Ann\tprivilege=0\n';
    const path = (id: string) =>
      `/iclock/querydata?SN=${SN}&type=tabledata&tablename=user&cmdid=${id}&count=1&packcnt=1&packidx=1`;
    // From another device using the serial: refused at the trust gate, settles nothing.
    expect((await http(r.url, 'POST', path(String(q.id)), rows, {}, '127.0.0.2')).status).toBe(403);
    expect(r.store.commands('a1').find((c) => c.id === q.id)?.state).toBe('sent');
    expect((await http(r.url, 'POST', path(String(q.id)), rows)).body).toBe('user=1');
    expect(r.store.commands('a1').find((c) => c.id === q.id)).toMatchObject({ state: 'done', returnCode: 0 });
    // The other command is untouched.
    expect(r.store.commands('a1').find((c) => c.id === other.id)?.state).toBe('sent');
    expect(r.store.users('a1', SN).map((u) => u.pin)).toEqual(['1001']);
  });
});
