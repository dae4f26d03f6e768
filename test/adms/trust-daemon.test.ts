import { Database } from '../../src/journal/sqlite-driver.js';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startPushTerminalSim, type PushTerminalSim } from '../../src/sim/push-terminal/index.js';
import { spawnDaemon, type DaemonProcess } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { startPushStack } from './daemon-stack.js';
import { attlog, http } from './harness.js';

/**
 * Issue 30, class 1, through `punchgate run` as a child process: a device on the LAN using a
 * terminal's serial from another address (127.0.0.x: other loopback addresses) sends whatever
 * the protocol has. Counted at the end: what reached the HRMS simulator, what the terminal is
 * told at its handshake, the users and commands in the journal, what the status says.
 */
const LOBBY = 'CQZ7232169001';
const GATE = 'SECPUSH9001';
const STRANGERS = ['127.0.0.2', '127.0.0.4', '127.0.0.5'];

interface StatusJson {
  terminals: { name: string; push?: { protocol: string; trustedAddress: string | null } }[];
  alerts: string[];
}

const statusOf = async (configPath: string) =>
  JSON.parse((await runPunchgate(['--config', configPath, 'status', '--json'])).stdout) as StatusJson;

/** The registration row the daemon wrote (read-only: the daemon holds the journal). */
function registration(path: string, serial: string) {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(`SELECT * FROM push_registry WHERE serial = ?`).get(serial) as
      | { registry_code: string | null; session_id: string | null; trusted_address: string | null; protocol: string }
      | undefined;
  } finally {
    db.close();
  }
}

async function stopDaemon(d: DaemonProcess) {
  d.child.kill('SIGTERM');
  const exit = await d.exited;
  expect(exit, d.output().slice(-3000)).toEqual({ code: 0, signal: null });
}

describe('only the terminal changes its state, through punchgate run', () => {
  it('refuses every state change a stranger tries, on both protocols, before and after the terminal goes silent and the daemon restarts', async () => {
    const stack = await startPushStack({
      terminals: [
        { name: 'lobby', serial: LOBBY },
        { name: 'gate', serial: GATE },
      ],
    });
    const journalPath = stack.tmp.path('journal.db');
    let d = spawnDaemon(stack.configPath);
    const common = { server: stack.url, punches: 12, timeMode: 'sequence' as const, delayMs: 100, errorDelayMs: 100 };
    let lobby: PushTerminalSim | undefined = startPushTerminalSim({
      ...common,
      serial: LOBBY,
      users: [
        { pin: '1001', name: 'Ana', privilege: 0, card: '' },
        { pin: '1002', name: 'Leaver', privilege: 0, card: '' },
      ],
      faults: { seed: 21 },
    });
    let gate: PushTerminalSim | undefined = startPushTerminalSim({
      ...common,
      serial: GATE,
      protocol: 'security',
      localAddress: '127.0.0.3',
      users: [{ pin: '2001', name: 'Bo', privilege: 0, card: '' }],
      faults: { seed: 22 },
    });
    const real = () => [...lobby!.passes(), ...gate!.passes()].map((r) => `${r.pin}@${r.logTime}`).sort();
    try {
      await waitFor(() => lobby!.backlog() === 0 && gate!.backlog() === 0, 60_000, 'both terminals uploaded');
      await waitFor(() => stack.hrms.attendance().length >= 24, 60_000, 'their punches delivered');
      const passes = real();
      const handshake = async () =>
        (await http(stack.url, 'GET', `/iclock/cdata?SN=${LOBBY}&options=all&pushver=2.4.1`)).body
          .split('\n')
          .filter((l) => /Stamp=/.test(l));
      // The real terminals are switched off; the lobby's command is handed to its address (127.0.0.1) and not yet answered.
      await lobby.stop();
      await gate.stop();
      lobby = gate = undefined;
      const queued = await runPunchgate(['--config', stack.configPath, 'terminals', 'command', 'lobby', 'INFO']);
      expect(queued.status, queued.stderr).toBe(0);
      const told = await handshake();
      expect(told.length).toBeGreaterThan(0);
      const handed = await http(stack.url, 'GET', `/iclock/getrequest?SN=${LOBBY}`);
      const id = /^C:(\d+):INFO/.exec(handed.body)?.[1];
      expect(id, handed.body).toBeDefined();

      const reg = registration(journalPath, GATE)!;
      const attacks = (serial: string) =>
        [
          ['POST', `/iclock/cdata?SN=${serial}&table=OPERLOG&Stamp=99999`, 'USER PIN=1002\tName=Leaver\tPri=14\n'],
          ['POST', `/iclock/cdata?SN=${serial}&table=USERINFO`, 'PIN=1003\tName=NewHire\tPri=0\n'],
          [
            'POST',
            `/iclock/cdata?SN=${serial}&table=tabledata&tablename=user&count=1`,
            'user uid=9\tpin=1004\tname=Eve\tprivilege=14\n',
          ],
          [
            'POST',
            `/iclock/querydata?SN=${serial}&type=tabledata&tablename=user`,
            'user uid=8\tpin=1005\tname=Mal\tprivilege=14\n',
          ],
          [
            'POST',
            `/iclock/cdata?SN=${serial}&table=ATTLOG&Stamp=999999999`,
            attlog(['666\t2026-11-01 08:00:00\t0\t1']),
          ],
          [
            'POST',
            `/iclock/cdata?SN=${serial}&table=rtlog`,
            'time=2026-11-01 08:00:01\tpin=667\tcardno=0\teventaddr=1\tevent=0\tinoutstatus=0\tverifytype=1\n',
          ],
          ['POST', `/iclock/cdata?SN=${serial}&table=INVENTED_TABLE&Stamp=5`, 'x=1\n'],
          ['POST', `/iclock/cdata?SN=${serial}&table=options`, 'FirmVer=evil\n'],
          ['GET', `/iclock/cdata?SN=${serial}&options=all&DeviceType=acc&pushver=3.1.2`, undefined],
          ['POST', `/iclock/registry?SN=${serial}`, 'DeviceType=acc,~DeviceName=Evil,FirmVer=1'],
          ['GET', `/iclock/push?SN=${serial}`, undefined],
          ['POST', `/iclock/push?SN=${serial}`, ''],
          ['GET', `/iclock/getrequest?SN=${serial}`, undefined],
          ['POST', `/iclock/devicecmd?SN=${serial}`, `ID=${id}&Return=0&CMD=DATA\n`],
          ['GET', `/iclock/ping?SN=${serial}`, undefined],
        ] as const;
      // A wrong token, a token of another serial: no better than none.
      const wrongCookies: Record<string, string>[] = [
        {},
        { Cookie: 'token=0123456789abcdef0123456789abcdef' },
        { Cookie: `token=${createHash('md5').update(`${reg.registry_code}${LOBBY}${reg.session_id}`).digest('hex')}` },
      ];
      const answers: { status: number; body: string }[] = [];
      const attackAll = async () => {
        for (const [k, from] of STRANGERS.entries())
          for (const serial of [LOBBY, GATE])
            for (const [method, path, body] of attacks(serial))
              answers.push(await http(stack.url, method, path, body, wrongCookies[k]!, from));
      };
      await attackAll();
      // Silent for longer than the old re-trust time (30 s) is not simulated here: a restart
      // forgets every in-memory sighting, and the stranger calls first.
      await stopDaemon(d);
      d = spawnDaemon(stack.configPath);
      await waitFor(() => /push terminal receiver listening/.test(d.output()), 15_000, 'the daemon again');
      await attackAll();
      expect(answers.length).toBe(2 * STRANGERS.length * 2 * 15);
      for (const a of answers) expect(a.status).toBe(403);
      // No secret in any answer.
      for (const a of answers) expect(a.body).not.toMatch(/RegistryCode|SessionID|registry=ok|C:\d+:/);
      if (reg.registry_code) for (const a of answers) expect(a.body).not.toContain(reg.registry_code);

      // The command handed to 127.0.0.1 is still waiting for 127.0.0.1's result.
      const command = async () => {
        const out = (await runPunchgate(['--config', stack.configPath, 'terminals', 'commands', 'lobby'])).stdout;
        const row = new RegExp(`^\\s*${id}\\s+(\\w+)\\s.*\\s(\\S+)\\s+INFO$`, 'm').exec(out);
        return { state: row?.[1], returnCode: row?.[2] === '-' ? null : Number(row?.[2]) };
      };
      expect(await command()).toMatchObject({ state: 'sent', returnCode: null });
      // What the terminals are told is what they uploaded: no stamp moved, no protocol switched.
      expect(await handshake()).toEqual(told);
      expect(registration(journalPath, LOBBY)!.protocol).toBe('attendance');
      expect(registration(journalPath, GATE)).toMatchObject({
        protocol: 'security',
        registry_code: reg.registry_code,
        session_id: reg.session_id,
        trusted_address: '127.0.0.3',
      });
      // The users are the terminals' own.
      const usersOf = async (name: string) =>
        (await runPunchgate(['--config', stack.configPath, 'terminals', 'users', name])).stdout
          .split('\n')
          .slice(1)
          .filter((l) => l.trim() !== '')
          .map((l) => l.trim().split(/\s+/).slice(0, 3).join(' '));
      expect(await usersOf('lobby')).toEqual(['1001 Ana user', '1002 Leaver user']);
      expect(await usersOf('gate')).toEqual(['2001 Bo user']);
      // The real terminal's result settles it.
      expect(
        (await http(stack.url, 'POST', `/iclock/devicecmd?SN=${LOBBY}`, `ID=${id}&Return=0&CMD=DATA\n`)).status,
      ).toBe(200);
      expect(await command()).toMatchObject({ state: 'done', returnCode: 0 });

      // The status names the strangers, never the terminals' own addresses, as the other device.
      await waitFor(
        async () =>
          (await statusOf(stack.configPath)).alerts.filter((a) => a.includes('was seen pushing from')).length === 2,
        20_000,
        'the sightings in the status',
      );
      const status = await statusOf(stack.configPath);
      const seen = status.alerts.filter((a) => a.includes('was seen pushing from'));
      // Every stranger named (the first three), none chosen by who sent last.
      for (const a of seen)
        expect(a).toMatch(
          /was seen pushing from 3 addresses \(127\.0\.0\.2, 127\.0\.0\.4, 127\.0\.0\.5\) \(\d+ requests/,
        );
      // punchgate check says it too (found by a new-user trial: it said PASS for the terminal).
      const check = await runPunchgate(['--config', stack.configPath, 'check']);
      expect(check.stdout).toMatch(
        /WARN\s+terminal lobby\W+terminal lobby \(SN=\S+\) was seen pushing from 3 addresses/,
      );
      expect(status.terminals.find((t) => t.name === 'lobby')?.push).toMatchObject({
        protocol: 'attendance',
        trustedAddress: '127.0.0.1',
      });
      expect(status.terminals.find((t) => t.name === 'gate')?.push).toMatchObject({
        protocol: 'security',
        trustedAddress: '127.0.0.3',
      });

      // A Security PUSH terminal that moved: its valid token moves the trust, and only that.
      const token = createHash('md5').update(`${reg.registry_code}${GATE}${reg.session_id}`).digest('hex');
      expect(
        (
          await http(
            stack.url,
            'GET',
            `/iclock/getrequest?SN=${GATE}`,
            undefined,
            { Cookie: 'token=feedfacefeedfacefeedfacefeedface' },
            '127.0.0.6',
          )
        ).status,
      ).toBe(403);
      expect(
        (
          await http(
            stack.url,
            'GET',
            `/iclock/getrequest?SN=${GATE}`,
            undefined,
            { Cookie: `token=${token}` },
            '127.0.0.6',
          )
        ).status,
      ).toBe(200);
      expect((await http(stack.url, 'GET', `/iclock/ping?SN=${GATE}`, undefined, {}, '127.0.0.3')).status).toBe(403);
      // The lobby, from its own address, carries on: every punch once at the HRMS, none of the strangers'.
      const next = attlog(['1001\t2026-11-02 08:00:00\t0\t1', '1001\t2026-11-02 17:00:00\t1\t1']);
      expect(await http(stack.url, 'POST', `/iclock/cdata?SN=${LOBBY}&table=ATTLOG&Stamp=14`, next)).toEqual({
        status: 200,
        body: 'OK:2',
      });
      await waitFor(() => stack.hrms.attendance().length >= passes.length + 2, 30_000, 'its new punches delivered');
      const delivered = stack.hrms.attendance().map((p) => `${p.biometriccode}@${p.logDate}`);
      expect(delivered.some((k) => k.startsWith('666@') || k.startsWith('667@'))).toBe(false);
      expect(new Set(delivered).size).toBe(delivered.length);
      expect(delivered.length).toBe(passes.length + 2);
    } finally {
      await lobby?.stop();
      await gate?.stop();
      await stopDaemon(d);
      await stack.stop();
    }
  }, 240_000);
  it('keeps the trust of a first contact through a SIGKILL a moment later: the stranger calling first after the restart is refused', async () => {
    const stack = await startPushStack({ terminals: [{ name: 'fresh', serial: 'FRESH0001' }] });
    let d = spawnDaemon(stack.configPath);
    try {
      await waitFor(() => /push terminal receiver listening/.test(d.output()), 15_000, 'the receiver');
      expect((await http(stack.url, 'GET', `/iclock/cdata?SN=FRESH0001&options=all`)).status).toBe(200);
      d.child.kill('SIGKILL');
      await d.exited;
      d = spawnDaemon(stack.configPath);
      await waitFor(() => /push terminal receiver listening/.test(d.output()), 15_000, 'the receiver again');
      for (const from of ['127.0.0.2', '127.0.0.9'])
        expect((await http(stack.url, 'GET', `/iclock/getrequest?SN=FRESH0001`, undefined, {}, from)).status).toBe(403);
      expect((await http(stack.url, 'GET', `/iclock/getrequest?SN=FRESH0001`)).status).toBe(200);
    } finally {
      await stopDaemon(d);
      await stack.stop();
    }
  }, 60_000);
});
