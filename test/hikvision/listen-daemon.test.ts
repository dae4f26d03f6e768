import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { Database } from '../../src/journal/sqlite-driver.js';
import { freePort } from '../../bench/lib/ports.js';
import { type HikvisionSim, type NewSimEvent } from '../../src/sim/hikvision/index.js';
import { keys, spawnDaemon, type DaemonProcess } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { hikDaemonStack } from './daemon-stack.js';
import { expectedPunches, PASS_MINORS, searches, startSim } from './helpers.js';

const PATH = '/listen/hikvision/reception';

/** A Hikvision stack whose terminal posts (listen: true) to the daemon's receiver on a fixed port. */
async function listenStack(sim: HikvisionSim, terminal: Record<string, unknown> = {}) {
  const s = await hikDaemonStack(sim.url, { terminal: { realtime: false, listen: true, ...terminal } });
  const port = await freePort();
  const cfg = parse(readFileSync(s.configPath, 'utf8')) as Record<string, unknown>;
  cfg.adms = { listen: `127.0.0.1:${port}`, requestTimeoutMs: 2000 };
  writeFileSync(s.configPath, stringify(cfg));
  return { ...s, port, hostUrl: `http://127.0.0.1:${port}${PATH}` };
}

/** One POST to the receiver; its status (0: cut). */
function post(
  port: number,
  body: Buffer | string,
  headers: Record<string, string | number>,
  opts: { localAddress?: string; path?: string } = {},
): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: opts.path ?? PATH,
        method: 'POST',
        headers,
        ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

const pass = (n: number): NewSimEvent => ({
  major: 5,
  minor: n % 2 ? 75 : 1,
  employeeNoString: `P${n}`,
  ...(n % 2 ? {} : { cardNo: `90${n}` }),
  attendanceStatus: n % 3 ? 'checkIn' : 'checkOut',
});

/** "code@time" of every punch in the journal (read while no daemon runs). */
function journalled(path: string): Set<string> {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db.prepare('SELECT biometric_code AS c, log_time AS t FROM punches').all() as {
      c: string;
      t: string;
    }[];
    return new Set(rows.map((r) => `${r.c}@${r.t}`));
  } finally {
    db.close();
  }
}

async function running(d: DaemonProcess) {
  await waitFor(
    () => d.output().includes('push terminal receiver listening') || d.child.exitCode !== null,
    20_000,
    'the receiver up',
  );
  if (d.child.exitCode !== null) throw new Error(d.output());
}

describe('a Hikvision terminal that posts its events (HTTP Listening) to punchgate run', () => {
  it('delivers every posted punch once through SIGKILLs (the terminal posts again what was not answered 200), with polls reading the same events: never doubled', async () => {
    const sim = await startSim(50, { listenFormat: 'multipart', listenRetryMs: 100 });
    // Polled only as each daemon starts (and when a post finds no serial yet): what a killed
    // daemon answered 200 must be in the journal by itself, before any later poll reads it.
    const s = await listenStack(sim, { schedule: '0 0 * * * *' });
    sim.setHttpHost(s.hostUrl);
    let n = 0;
    // A pass every 100 ms while the terminal has fewer than 10 events left to post: it never
    // stops posting, and on a loaded machine its queue does not grow past what a daemon between
    // two kills can take (unbounded, it grew to 100 and the wait for it to catch up timed out).
    const adder = setInterval(() => {
      if (sim.posts().queued >= 10) return;
      n++;
      sim.addEvents([
        pass(n),
        ...(n % 4 === 0
          ? [
              { major: 5, minor: 21, doorNo: 1 },
              { major: 5, minor: 39 },
            ]
          : []),
      ]);
    }, 100);
    try {
      for (let kill = 0; kill < 5; kill++) {
        const before = sim.posts().delivered;
        const d = spawnDaemon(s.configPath);
        await running(d);
        // Killed once this daemon has answered some posts, at a random moment after.
        // (and once the terminal has caught up: it posts events newer than this run's first poll).
        await waitFor(
          () => sim.posts().delivered > before + 5 && sim.posts().queued < 5,
          30_000,
          'posts answered by this run',
        ).catch((e: Error) => {
          throw new Error(`${e.message}: ${JSON.stringify(sim.posts())}\n${d.output().slice(-2000)}`);
        });
        await new Promise((r) => setTimeout(r, 20 + Math.floor(Math.random() * 400)));
        d.child.kill('SIGKILL');
        await d.exited;
        // Never OK for a punch not kept: every pass answered 200 is in the journal.
        const kept = journalled(s.tmp.path('journal.db'));
        const acked = expectedPunches(sim.postsAcked());
        expect(acked.length).toBeGreaterThan(0);
        expect(acked.filter((k) => !kept.has(k))).toEqual([]);
      }
      clearInterval(adder);
      const d = spawnDaemon(s.configPath);
      // Running before the waits below: earlier runs may have delivered everything already, and a
      // SIGTERM before the daemon has its handlers ends it by the signal, not with exit 0.
      await running(d);
      const expected = expectedPunches(sim.events());
      await waitFor(() => sim.posts().queued === 0, 30_000, 'every event posted');
      await waitFor(() => keys(s.hrms.attendance()).length >= expected.length, 60_000, 'every pass delivered').catch(
        (e: Error) => {
          throw new Error(
            `${e.message}: ${keys(s.hrms.attendance()).length} of ${expected.length}\n${d.output().slice(-3000)}`,
          );
        },
      );
      // Each pass once at the HRMS (post, retry and poll together), at the device's wall clock.
      expect(keys(s.hrms.attendance())).toEqual(expected);
      expect(s.hrms.attendance().length).toBe(expected.length);
      // The terminal did post again what a killed daemon had not answered.
      expect(sim.posts().attempts).toBeGreaterThan(sim.posts().delivered);
      // (Not "received 1 punch in real time" from this last run: on a loaded machine its first poll
      // may read every event before the terminal posts again, and a post is then a duplicate.
      // The set-up test proves posts arrive between polls.)
      d.child.kill('SIGTERM');
      expect(await d.exited).toEqual({ code: 0, signal: null });
    } finally {
      clearInterval(adder);
      await sim.stop();
      await s.stop();
    }
  }, 240_000);

  it('set up by `punchgate terminals listen`: punches arrive by post between polls of an hourly schedule; the picture is not kept', async () => {
    const sim = await startSim(5, { listenFormat: 'multipart', listenPictureBytes: 512 * 1024, listenRetryMs: 100 });
    const s = await listenStack(sim, { schedule: '0 0 * * * *' });
    const d = spawnDaemon(s.configPath);
    try {
      await running(d);
      await waitFor(() => s.hrms.attendance().length >= 5, 20_000, 'the first poll delivered');
      // --print shows the setting and writes nothing.
      const printed = await runPunchgate([
        '--config',
        s.configPath,
        'terminals',
        'listen',
        'reception',
        '--address',
        '127.0.0.1',
        '--print',
      ]);
      expect(printed.status).toBe(0);
      expect(printed.stdout).toContain(`<url>${PATH}</url>`);
      expect(printed.stdout).toContain(`<portNo>${s.port}</portNo>`);
      expect(sim.httpHosts()).toEqual([]);
      const set = await runPunchgate([
        '--config',
        s.configPath,
        'terminals',
        'listen',
        'reception',
        '--address',
        '127.0.0.1',
      ]);
      expect(set.stderr + set.stdout).toContain(`now posts its events to http://127.0.0.1:${s.port}${PATH}`);
      expect(set.status).toBe(0);
      expect(sim.httpHosts()).toMatchObject([
        { url: PATH, ipAddress: '127.0.0.1', portNo: s.port, protocolType: 'HTTP', parameterFormatType: 'JSON' },
      ]);
      const polls = searches(sim).length;
      sim.addEvents(Array.from({ length: 20 }, (_, i) => pass(1000 + i)));
      await waitFor(() => s.hrms.attendance().length >= 25, 20_000, 'the posted punches delivered');
      // No poll read them: the schedule is hourly (the first poll only, at the start).
      expect(searches(sim).length).toBe(polls);
      expect(keys(s.hrms.attendance())).toEqual(expectedPunches(sim.events()));
      // 20 pictures of 512 kB were posted; none is in the journal's files.
      const filler = Buffer.alloc(4096, 0x5a);
      const dir = s.tmp.path('.');
      for (const f of readdirSync(dir).filter((x) => x.startsWith('journal.db')))
        expect(readFileSync(`${dir}/${f}`).includes(filler)).toBe(false);
      // The check line says it posted.
      const check = await runPunchgate(['--config', s.configPath, 'check', '--json']);
      const line = (
        JSON.parse(check.stdout) as { checks: { name: string; status: string; detail: string }[] }
      ).checks.find((c) => c.name === 'terminal reception (HTTP Listening)');
      expect(line).toMatchObject({ status: 'pass' });
      expect(line!.detail).toMatch(/last post at/);
      const list = await runPunchgate(['--config', s.configPath, 'terminals']);
      expect(list.stdout).toMatch(/posts its events \(HTTP Listening\): last post \d{4}-/);
    } finally {
      d.child.kill('SIGTERM');
      await d.exited;
      await sim.stop();
      await s.stop();
    }
  }, 120_000);

  it('refuses a stranger posting the terminal events from another address (403, nothing kept, an alert), and survives huge, slow and malformed posts', async () => {
    const sim = await startSim(3, { listenFormat: 'json', listenRetryMs: 100 });
    const s = await listenStack(sim, { schedule: '0 0 * * * *' });
    const d = spawnDaemon(s.configPath);
    try {
      await running(d);
      await waitFor(() => s.hrms.attendance().length >= 3, 20_000, 'the first poll delivered');
      // A stranger at 127.0.0.2 posts a pass of the terminal, serial and MAC included.
      const forged = JSON.stringify({
        ipAddress: '127.0.0.1',
        macAddress: '44:19:b6:00:00:01',
        dateTime: '2026-11-02T07:58:01+05:30',
        eventType: 'AccessControllerEvent',
        AccessControllerEvent: { majorEventType: 5, subEventType: 75, employeeNoString: 'INTRUDER', serialNo: 99_999 },
      });
      for (let i = 0; i < 20; i++)
        expect(await post(s.port, forged, { 'content-type': 'application/json' }, { localAddress: '127.0.0.2' })).toBe(
          403,
        );
      // Huge: declared, and not declared (chunked); malformed JSON; a multipart post without a boundary.
      expect(
        await post(s.port, Buffer.alloc(10), { 'content-type': 'application/json', 'content-length': 50_000_000 }),
      ).toBeOneOf([0, 413]);
      expect(
        await post(s.port, Buffer.alloc(6 * 1024 * 1024, 0x20), { 'content-type': 'multipart/form-data; boundary=x' }),
      ).toBeOneOf([0, 400, 413]);
      expect(
        await post(s.port, '{"eventType": "AccessControllerEvent", ', { 'content-type': 'application/json' }),
      ).toBe(400);
      expect(await post(s.port, 'x', { 'content-type': 'multipart/form-data' })).toBe(400);
      // Slow: a post that stops mid-body is cut by the receiver's request timeout.
      const slow = await new Promise<number>((resolve) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: s.port,
            path: PATH,
            method: 'POST',
            headers: { 'content-type': 'application/json', 'content-length': 1000 },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', () => resolve(0));
        req.write('{"eventType":');
      });
      // The receiver ends it (its request timeout: 408, or 400 from its client-error answer) or cuts it.
      expect([0, 400, 408]).toContain(slow);
      // The terminal's own posts still go through.
      sim.setHttpHost(s.hostUrl);
      sim.addEvents([pass(1), pass(2)]);
      await waitFor(() => s.hrms.attendance().length >= 5, 20_000, 'the terminal posts delivered');
      expect(keys(s.hrms.attendance())).toEqual(expectedPunches(sim.events()));
      expect(s.hrms.attendance().some((p) => p.biometriccode === 'INTRUDER')).toBe(false);
      // Logged at a bounded rate, and alerted.
      expect(d.output().match(/127\.0\.0\.2 posted events to the path of terminal reception/g)?.length).toBe(5);
      const status = s.tmp.path('status.txt');
      await waitFor(
        () => /posted to its path \(20 posts/.test(readFileSync(status, 'utf8')),
        20_000,
        'the alert in the status',
      );
      expect(d.child.exitCode).toBeNull();
    } finally {
      d.child.kill('SIGTERM');
      await d.exited;
      await sim.stop();
      await s.stop();
    }
  }, 120_000);

  it('events a terminal re-sends after being offline (currentEvent false, multipart with a picture, JSON or XML) are punches at their own time, once each; a person + ID card pass (5/105) among them', async () => {
    // The shape of a re-sent event as published captures show it: the outer dateTime is the
    // event's own time (days before the post), currentEvent false, frontSerialNo the one before;
    // multipart with a JPEG part (creatorsgarten/garden-gate HIKVISION.md; pergolafabio/Hikvision-Addons#177).
    const sim = await startSim(3, { listenFormat: 'json', listenRetryMs: 100 });
    const s = await listenStack(sim, { schedule: '0 0 * * * *' });
    const d = spawnDaemon(s.configPath);
    try {
      await running(d);
      await waitFor(() => s.hrms.attendance().length >= 3, 20_000, 'the first poll delivered');
      const resent = (code: string, dateTime: string, serialNo: number, minor = 75) => ({
        ipAddress: '127.0.0.1',
        portNo: 80,
        protocol: 'HTTP',
        dateTime,
        activePostCount: 1,
        eventType: 'AccessControllerEvent',
        eventState: 'active',
        eventDescription: 'Access Controller Event',
        AccessControllerEvent: {
          deviceName: 'Access Controller',
          majorEventType: 5,
          subEventType: minor,
          employeeNoString: code,
          serialNo,
          currentVerifyMode: 'cardOrFace',
          currentEvent: false,
          frontSerialNo: serialNo - 1,
          attendanceStatus: 'checkIn',
          picturesNumber: 1,
        },
      });
      const boundary = 'MIME_boundary';
      const multipart = (event: unknown) =>
        Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="AccessControllerEvent"\r\n` +
              `Content-Type: application/json\r\n\r\n${JSON.stringify(event)}\r\n` +
              `--${boundary}\r\nContent-Disposition: form-data; name="Picture"; filename="Picture.jpg"\r\n` +
              'Content-Type: image/jpeg\r\n\r\n',
          ),
          Buffer.from([0xff, 0xd8, 0xff, 0xe0, ...Buffer.alloc(2048, 7), 0xff, 0xd9]),
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]);
      const mp = { 'content-type': `multipart/form-data; boundary=${boundary}` };
      // Stored while offline three days ago, posted now; twice (the first answer lost); one in XML.
      const old = resent('R1', '2026-10-28T07:58:01+05:30', 500);
      expect(await post(s.port, multipart(old), mp)).toBe(200);
      expect(await post(s.port, multipart(old), mp)).toBe(200);
      expect(
        await post(s.port, JSON.stringify(resent('R2', '2026-10-28T18:02:33+05:30', 501, 105)), {
          'content-type': 'application/json',
        }),
      ).toBe(200);
      const xml =
        '<?xml version="1.0" encoding="UTF-8"?><EventNotificationAlert version="2.0" xmlns="http://www.isapi.org/ver20/XMLSchema">' +
        '<ipAddress>127.0.0.1</ipAddress><dateTime>2026-10-29T08:10:00+05:30</dateTime><eventType>AccessControllerEvent</eventType>' +
        '<AccessControllerEvent><majorEventType>5</majorEventType><subEventType>1</subEventType><employeeNoString>R3</employeeNoString>' +
        '<serialNo>502</serialNo><currentEvent>false</currentEvent></AccessControllerEvent></EventNotificationAlert>';
      expect(await post(s.port, xml, { 'content-type': 'application/xml' })).toBe(200);
      // A pass the poll read already, re-sent: the same punch, not a second one.
      const first = sim.events().find((e) => e.major === 5 && PASS_MINORS.has(e.minor) && e.employeeNoString)!;
      expect(
        await post(s.port, multipart(resent(first.employeeNoString!, first.time, first.serialNo, first.minor)), mp),
      ).toBe(200);
      await waitFor(() => s.hrms.attendance().length >= 6, 20_000, 'the re-sent punches delivered');
      const got = keys(s.hrms.attendance());
      expect(got).toEqual(
        [
          ...expectedPunches(sim.events()),
          'R1@2026-10-28 07:58:01',
          'R2@2026-10-28 18:02:33',
          'R3@2026-10-29 08:10:00',
        ].sort(),
      );
      expect(s.hrms.attendance().length).toBe(6);
    } finally {
      d.child.kill('SIGTERM');
      await d.exited;
      await sim.stop();
      await s.stop();
    }
  }, 120_000);

  it('a terminal that posts before listen: true is answered 404 and keeps its events; after a reload (SIGHUP) they are delivered, once', async () => {
    const sim = await startSim(2, { listenFormat: 'json', listenRetryMs: 100 });
    const s = await listenStack(sim, { schedule: '0 0 * * * *', listen: false });
    const d = spawnDaemon(s.configPath);
    try {
      await running(d);
      await waitFor(() => s.hrms.attendance().length >= 2, 20_000, 'the first poll delivered');
      sim.setHttpHost(s.hostUrl);
      sim.addEvents([pass(1), pass(2), pass(3)]);
      await waitFor(() => sim.posts().attempts >= 5, 20_000, 'posts refused');
      expect(sim.posts()).toMatchObject({ delivered: 0, lastStatus: 404 });
      expect(s.hrms.attendance()).toHaveLength(2);
      const cfg = parse(readFileSync(s.configPath, 'utf8')) as { terminals: Record<string, unknown>[] };
      cfg.terminals[0]!.listen = true;
      writeFileSync(s.configPath, stringify(cfg));
      d.child.kill('SIGHUP');
      await waitFor(() => sim.posts().delivered === 3, 20_000, 'the posts answered 200 after the reload');
      await waitFor(() => s.hrms.attendance().length >= 5, 20_000, 'delivered');
      expect(keys(s.hrms.attendance())).toEqual(expectedPunches(sim.events()));
      expect(s.hrms.attendance()).toHaveLength(5);
    } finally {
      d.child.kill('SIGTERM');
      await d.exited;
      await sim.stop();
      await s.stop();
    }
  }, 120_000);
});
