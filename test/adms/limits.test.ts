import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { admsSchema } from '../../src/config/adms.js';
import { activePushNotes } from '../../src/sources/adms/index.js';
import { ALERT } from '../../src/status/index.js';
import { waitFor } from '../helpers/wait.js';
import { attlog, http, startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;
const SN = 'CQZ7232160001';

/** A raw TCP client: what it receives, and whether the server closed it. */
function rawClient(port: number): Promise<{ socket: Socket; received: () => string; closed: () => boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let data = '';
    let closed = false;
    socket.on('data', (d) => (data += d.toString()));
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, received: () => data, closed: () => closed }));
    socket.once('error', reject);
  });
}

describe('ADMS receiver: the one port open to the LAN', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('refuses a body over adms.maxBodyBytes with 413 and stores nothing of it', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)], adms: { maxBodyBytes: 2048 } });
    const lines = Array.from(
      { length: 100 },
      (_, i) => `${1000 + i}\t2026-11-01 08:00:${String(i % 60).padStart(2, '0')}\t0\t1`,
    );
    const big = await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=1`, attlog(lines));
    expect(big.status).toBe(413);
    // Chunked, no Content-Length: cut off while reading.
    const chunked = await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=1`, attlog(lines), {
      'Transfer-Encoding': 'chunked',
    });
    expect(chunked.status).toBe(413);
    expect(r.journal.queries.list()).toEqual([]);
    expect(r.store.stamps('lobby', SN)).toEqual({});
  });

  it('an upload refused as too large is a contact and an alert with the fix; the alert ends when the upload goes through', async () => {
    // Found by an adversarial trial: the status showed the terminal OFFLINE ("no call since"), the
    // refusal was in the log only, and the terminal sent the same upload for ever.
    r = await startReceiver({ terminals: [terminal('lobby', SN)], adms: { maxBodyBytes: 2048 }, notes: true });
    const lines = Array.from(
      { length: 100 },
      (_, i) => `${1000 + i}\t2026-11-01 08:00:${String(i % 60).padStart(2, '0')}\t0\t1`,
    );
    const upload = `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=1`;
    expect((await http(r.url, 'POST', upload, attlog(lines))).status).toBe(413);
    const notes = () => activePushNotes(r!.journal.sourceState, 'lobby', Date.now());
    expect(notes()).toHaveLength(1);
    const alert = ALERT.pushNote('lobby', notes()[0]!);
    expect(alert.kind).toBe('push-too-large');
    expect(alert.cause).toMatch(
      /^terminal lobby: an upload \(ATTLOG\) of [\d,]+ bytes or more was refused: larger than adms.maxBodyBytes \(2,048\)/,
    );
    expect(alert.fix).toMatch(/raise adms.maxBodyBytes above [\d,]+ .* and reload/);
    await waitFor(
      () => r!.store.pushTerminals().some((t) => t.terminal === 'lobby' && t.lastContactAt !== null),
      5000,
      'the refused upload counted as contact',
    );
    // A command result does not end it; the upload itself, once the limit is raised, does.
    await http(r.url, 'POST', `/iclock/devicecmd?SN=${SN}`, 'ID=1&Return=0&CMD=INFO\n');
    expect(notes()).toHaveLength(1);
    r.receiver.configure({ ...admsSchema.parse({ listen: '127.0.0.1:0' }), maxBodyBytes: 1_048_576 });
    expect((await http(r.url, 'POST', upload, attlog(lines))).body).toBe('OK:100');
    expect(notes()).toEqual([]);
    expect(r.journal.queries.list({ limit: 1000 })).toHaveLength(100);
  });

  it('a large upload (256 KB and more), read and journalled in steps, keeps every punch and every line it cannot read; others are served meanwhile', async () => {
    // Issue 35: a 2 MB upload held the event loop over 100 ms in one piece; it is now read, kept
    // and journalled with a pause between the steps (handler-kit.ts, pauseIfLarge). Counted here.
    const OTHER = 'CQZ7232160002';
    r = await startReceiver({
      terminals: [terminal('lobby', SN), terminal('gate', OTHER)],
      adms: { maxBodyBytes: 4 * 1024 * 1024 },
    });
    const lines: string[] = [];
    for (let i = 0; i < 8_000; i++) {
      const t = new Date(Date.UTC(2026, 10, 1, 6) + i * 1000).toISOString().slice(0, 19).replace('T', ' ');
      lines.push(`${1000 + (i % 300)}\t${t}\t0\t1\t0\t0\t0`);
      if (i % 8 === 0) lines.push(`junk line ${i} with no tab in it, padded ${'x'.repeat(20)}`);
    }
    const body = attlog(lines);
    expect(body.length).toBeGreaterThan(256 * 1024);
    const big = http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=1`, body);
    const small = http(
      r.url,
      'POST',
      `/iclock/cdata?SN=${OTHER}&table=ATTLOG&Stamp=1`,
      attlog(['7\t2026-11-01 09:00:00\t0\t1']),
    );
    const [b, s] = await Promise.all([big, small]);
    expect([b.status, s.status]).toEqual([200, 200]);
    expect(b.body).toContain('OK:8000');
    const rows = r.journal.queries.list();
    expect(rows.filter((p) => p.terminal === 'lobby')).toHaveLength(8_000);
    expect(rows.filter((p) => p.terminal === 'gate')).toHaveLength(1);
    expect(r.store.keptUploads('lobby').map((k) => k.lines)).toEqual([1_000]);
  });

  it('stores nothing of a body cut off mid-way (a dropped connection), then takes the batch whole', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const body = attlog(['1001\t2026-11-01 08:00:00\t0\t1', '1002\t2026-11-01 08:00:01\t0\t1']);
    const c = await rawClient(r.port);
    c.socket.write(
      `POST /iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=2 HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 20)}`,
    );
    c.socket.destroy();
    await waitFor(() => c.closed(), 20_000, 'client gone');
    const ok = await http(r.url, 'POST', `/iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=2`, body);
    expect(ok.body).toBe('OK:2');
    expect(r.journal.queries.list()).toHaveLength(2);
  });

  it('closes a client that sends its body too slowly (adms.requestTimeoutMs)', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)], adms: { requestTimeoutMs: 1000 } });
    const c = await rawClient(r.port);
    c.socket.write(
      `POST /iclock/cdata?SN=${SN}&table=ATTLOG&Stamp=2 HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n1001\t`,
    );
    await waitFor(() => c.closed(), 10_000, 'slow client closed by the server');
    expect(c.received()).not.toContain('OK');
    // A client that never finishes its headers is closed too.
    const h = await rawClient(r.port);
    h.socket.write('GET /iclock/ping?SN=x HTTP/1.1\r\nHost: x\r\n');
    await waitFor(() => h.closed(), 15_000, 'slow headers closed by the server');
    expect(r.journal.queries.list()).toEqual([]);
  });

  it('bounds the connections of one address (adms.maxConnectionsPerAddress)', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)], adms: { maxConnectionsPerAddress: 3 } });
    const clients = await Promise.all(Array.from({ length: 5 }, () => rawClient(r!.port)));
    await waitFor(
      () => clients.filter((c) => c.closed()).length === 2,
      20_000,
      'two connections over the bound closed',
    );
    const open = clients.filter((c) => !c.closed());
    open[0]!.socket.write(`GET /iclock/ping?SN=${SN} HTTP/1.1\r\nHost: x\r\n\r\n`);
    await waitFor(() => open[0]!.received().includes('\r\n\r\nOK'), 20_000, 'an open connection still served');
    for (const c of clients) c.socket.destroy();
    // Once they are gone, the address may connect again.
    await waitFor(() => clients.every((c) => c.closed()), 20_000, 'clients closed');
    expect((await http(r.url, 'GET', `/iclock/ping?SN=${SN}`)).body).toBe('OK');
  });

  it('bounds all connections together (adms.maxConnections)', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)], adms: { maxConnections: 4 } });
    const clients = await Promise.all(Array.from({ length: 7 }, () => rawClient(r!.port)));
    await waitFor(
      () => clients.filter((c) => c.closed()).length === 3,
      20_000,
      'three connections over the bound closed',
    );
    for (const c of clients) c.socket.destroy();
  });

  it('answers a malformed request line 400 and closes it', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', SN)] });
    const c = await rawClient(r.port);
    c.socket.write('\u0000\u0001garbage\r\n\r\n');
    await waitFor(() => c.closed(), 20_000, 'closed');
    expect(c.received()).toMatch(/^HTTP\/1.1 400/);
  });
});
