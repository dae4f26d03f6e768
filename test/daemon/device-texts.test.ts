import { openSync, writeSync, closeSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { freePort } from '../../bench/lib/ports.js';
import { Database } from '../../src/journal/sqlite-driver.js';
import { wallClockAt } from '../../src/punch.js';
import { startHikvisionSim } from '../../src/sim/hikvision/index.js';
import { startHrmsSim } from '../../src/sim/hrms/index.js';
import { createPtyPair } from '../../src/sim/serial/index.js';
import { startTerminalSim } from '../../src/sim/terminal/index.js';
import { runPunchgate } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/wait.js';
import { spawnDaemon, statusUrl, TOKEN } from './stack.js';

/**
 * One text rule for every source: codes a device sends that are not codes (bidirectional
 * overrides, ESC sequences, NUL, line breaks, blanks, zero-width and other invisible characters,
 * U+FFFD, 10,000 characters, nothing) never reach the HRMS, whichever door they come through: a
 * ZK terminal (poll and real-time), a Hikvision terminal (event search and alert stream, whose
 * source has no check of its own: the journal's door is its guard), a push terminal, a serial
 * reader and an imported file. A Hikvision serial number of 5,000 characters is kept as a bounded
 * stand-in, not on every punch row; the status says what was refused and shows every device
 * text escaped and bounded. Real processes, counted at the HRMS simulator.
 */
const HOSTILE: Record<string, string> = {
  'bidi override': '10\u202e01',
  'bidi isolate': '\u20661001',
  'ESC sequence': '10\u001b[31m',
  NUL: '10\u000001',
  'line feed': '10\n01',
  'carriage return': '1001\r',
  blank: '10 01',
  'no-break space': '1001\u00a0',
  'zero-width space': '10\u200b01',
  'byte order mark': '\ufeff1001',
  'U+FFFD': '10\ufffd01',
  'C1 control': '10\u008501',
  'line separator': '10\u202801',
  'lone surrogate': '10\ud80001',
  '10,000 characters': '7'.repeat(10_000),
  empty: '',
};
/** Invisible or moving characters that must never be printed raw in what an admin reads. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point here
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/;

describe('device texts through every source', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('no hostile code reaches the HRMS from ZK, Hikvision (search and stream), push, serial or import; the status names the refusals and the stand-in serial', async () => {
    const tmp = tempDir('punchgate-texts-');
    cleanups.push(() => tmp.cleanup());
    const hrms = await startHrmsSim({ tokens: [TOKEN] });
    cleanups.push(() => hrms.stop());
    const now = () => wallClockAt(Date.now());

    // ZK: hostile user ids that fit the protocol's 24-byte field (NUL ends it there: not a code of its own).
    const zkHostile = Object.entries(HOSTILE).filter(([k, v]) => k !== 'NUL' && v !== '' && Buffer.byteLength(v) < 24);
    const zk = await startTerminalSim({
      serialNumber: 'ZK-TEXTS-1',
      users: [{ uid: 1, userId: 'Z1', name: 'A' }],
      punches: [
        { userId: 'Z1', logTime: now() },
        ...zkHostile.map(([, v], i) => ({ userId: v, logTime: wallClockAt(Date.now() - (i + 1) * 1000) })),
      ],
    });
    cleanups.push(() => zk.stop());

    // Hikvision: a 5,000-character serial number, hostile codes in the log (read by search).
    const hik = await startHikvisionSim({
      password: 'Right-passw0rd',
      utcOffset: '+00:00',
      serialNumber: 'DS-K1T'.padEnd(5000, 'Q'),
    });
    cleanups.push(() => hik.stop());
    hik.addEvents([
      { major: 5, minor: 75, employeeNoString: 'H1', attendanceStatus: 'checkIn' },
      ...Object.values(HOSTILE).map((v) => ({ major: 5, minor: 75, employeeNoString: v })),
    ]);

    const pair = await createPtyPair(tmp.path('tty'));
    cleanups.push(() => pair.close());
    const admsPort = await freePort();
    writeFileSync(tmp.path('token'), `${TOKEN}\n`);
    writeFileSync(tmp.path('reception.pass'), 'Right-passw0rd\n');
    const configPath = tmp.path('punchgate.yaml');
    writeFileSync(
      configPath,
      stringify({
        site: 'plant-x',
        journal: { path: tmp.path('journal.db') },
        hrms: { baseUrl: hrms.url, tokenFile: tmp.path('token'), timeoutMs: 20_000, connectTimeoutMs: 5000 },
        delivery: { batchSize: 100, pollIntervalMs: 100, retry: { baseMs: 50, maxMs: 500 } },
        status: { intervalMs: 300, listen: '127.0.0.1:0' },
        adms: { listen: `127.0.0.1:${admsPort}`, delay: 1, errorDelay: 1 },
        terminals: [
          {
            name: 'gate-1',
            kind: 'zk',
            host: '127.0.0.1',
            port: zk.port,
            transport: 'tcp',
            schedule: '* * * * * *',
            realtime: true,
            timeoutMs: 5000,
          },
          {
            name: 'reception',
            kind: 'hikvision',
            url: hik.url,
            username: 'admin',
            passwordFile: 'reception.pass',
            schedule: '* * * * * *',
            timezone: 'UTC',
            timeoutMs: 5000,
            realtime: true,
          },
          { name: 'lobby', kind: 'adms', serial: 'LOBBY0001', timezone: 'UTC' },
          { name: 'clock-1', kind: 'serial', path: pair.devicePath, format: 'regex' },
        ],
      }),
    );
    const d = spawnDaemon(configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    const url = await statusUrl(d);
    await waitFor(() => /real-time events subscribed/.test(d.output()), 20_000, 'ZK real-time link up');

    // ZK real time: hostile ids as live events.
    zk.addPunch({ userId: 'Z2', logTime: now() });
    for (const [, v] of zkHostile) zk.addPunch({ userId: v, logTime: now() });
    // Hikvision alert stream: hostile codes as live events too.
    await waitFor(() => hik.streams() > 0, 20_000, 'the Hikvision alert stream open');
    hik.addEvents([
      { major: 5, minor: 38, employeeNoString: 'H2' },
      ...Object.values(HOSTILE).map((v) => ({ major: 5, minor: 38, employeeNoString: v })),
    ]);
    // Push: one upload with good and hostile PINs (tab-separated lines: no line break in a PIN).
    const pushLines = [
      `P1\t${now()}\t0\t1`,
      ...Object.entries(HOSTILE)
        .filter(([k]) => !/line feed|carriage/.test(k))
        .map(([, v]) => `${v}\t${now()}\t0\t1`),
    ];
    const push = await fetch(`http://127.0.0.1:${admsPort}/iclock/cdata?SN=LOBBY0001&table=ATTLOG&Stamp=1`, {
      method: 'POST',
      body: `${pushLines.join('\n')}\n`,
    });
    expect(push.status).toBe(200);
    // Serial: lines with good and hostile codes, as raw bytes on the wire.
    const fd = openSync(pair.peerPath, 'w');
    for (const v of [
      'S1',
      ...Object.entries(HOSTILE)
        .filter(([k]) => !/line feed|carriage/.test(k))
        .map(([, v]) => v),
    ])
      writeSync(fd, Buffer.from(`${v},${now()}\n`, 'utf8'));
    closeSync(fd);
    // Import: a CSV with good and hostile codes and a hostile terminal name.
    const csv = [
      'biometriccode,logDate,terminal',
      `I1,${now()},gate-1`,
      `I2,${now()},"gate\u001b[2J"`,
      ...Object.values(HOSTILE).map((v) => `"${v.replace(/"/g, '""')}",${now()},gate-1`),
    ];
    writeFileSync(tmp.path('punches.csv'), `${csv.join('\n')}\n`);
    const imported = await runPunchgate(['--config', configPath, 'import', tmp.path('punches.csv')]);
    expect(imported.status, imported.stdout + imported.stderr).toBe(65);
    expect(imported.stdout + imported.stderr).not.toMatch(RAW);

    const good = ['Z1', 'Z2', 'H1', 'H2', 'P1', 'S1', 'I1'];
    await waitFor(
      () => good.every((c) => hrms.received().some((p) => p.biometriccode === c)),
      40_000,
      'every good code delivered',
    );
    // The Hikvision search has read everything the stream had (a later poll), and delivery is idle.
    await waitFor(
      async () => {
        const r = await runPunchgate(['--config', configPath, 'status', '--json']);
        const s = JSON.parse(r.stdout) as { punches: { pending: number; inflight: number }; alerts: string[] };
        return (
          s.punches.pending + s.punches.inflight === 0 && s.alerts.some((a) => /reception: \d+ records refused/.test(a))
        );
      },
      30_000,
      'delivery idle and the refusals in the status',
    );

    const received = hrms.received().map((p) => p.biometriccode);
    expect([...new Set(received)].sort().map((c) => JSON.stringify(c).slice(0, 40))).toEqual(
      [...good].sort().map((c) => JSON.stringify(c)),
    );

    // The journal holds no hostile code, and no device text longer than 64 characters.
    const db = new Database(tmp.path('journal.db'), { readonly: true });
    cleanups.push(() => db.close());
    const rows = db.prepare('SELECT terminal, device, biometric_code AS code FROM punches').all() as {
      terminal: string;
      device: string;
      code: string;
    }[];
    expect(rows.map((r) => r.code).filter((c) => !good.includes(c))).toEqual([]);
    expect(Math.max(...rows.map((r) => r.device.length))).toBeLessThanOrEqual(64);
    const hikDevice = rows.find((r) => r.terminal === 'reception')!.device;
    expect(hikDevice).toMatch(/^DS-K1TQ+~[0-9a-f]{16}$/);
    const ledger = db.prepare('SELECT serial FROM terminals WHERE name = ?').get('reception') as { serial: string };
    expect(ledger.serial).toBe(hikDevice);
    const state = db.prepare('SELECT max(length(key)) AS n FROM source_state').get() as { n: number };
    expect(state.n).toBeLessThanOrEqual(128);

    // What the admin reads: the refusals and the stand-in named, every text escaped and bounded.
    const status = await runPunchgate(['--config', configPath, 'status']);
    expect(status.stdout).toMatch(/terminal reception: \d+ records refused since .*, not journalled \(last .*code "/);
    expect(status.stdout).toMatch(/terminal reception reports a serial number that is not one/);
    expect(status.stdout).not.toMatch(RAW);
    expect(status.stdout.length).toBeLessThan(20_000);
    const terminals = await runPunchgate(['--config', configPath, 'terminals']);
    expect(terminals.stdout).not.toMatch(RAW);
    expect(terminals.stdout).not.toContain('Q'.repeat(100));
    const page = await (await fetch(url)).text();
    expect(page).not.toMatch(RAW);
    expect(page).not.toContain('Q'.repeat(100));
    const metrics = await (await fetch(new URL('/metrics', url))).text();
    expect(metrics).not.toMatch(RAW);
    // The log says which records were refused, escaped.
    expect(d.output()).toMatch(
      /terminal reception: record refused, not journalled: biometric code has a bidirectional control/,
    );
    expect(d.output()).not.toContain('7'.repeat(200));
    expect(d.output()).not.toContain('Q'.repeat(200));

    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
  }, 120_000);
});
