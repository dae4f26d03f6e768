import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/index.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * A terminal's `direction` and `directionStates` as a site admin writes them wrong: `punchgate`
 * as a child process on a real file, exit 78, one `file:line: path (terminal): ...` line each.
 */
describe('direction settings in the config', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.cleanup());

  const run = (terminals: string) => {
    const file = tmp.path('punchgate.yaml');
    writeFileSync(
      file,
      `site: plant-a
journal:
  path: j.db
hrms:
  baseUrl: https://hr.example.com
status:
  listen: false
terminals:
${terminals}`,
    );
    const r = spawnSync(process.execPath, ['dist/punchgate.js', '--config', file, 'punches', '--count'], {
      encoding: 'utf8',
      env: { ...process.env, PUNCHGATE_HRMS_TOKEN: 'x' },
    });
    return { file, status: r.status, lines: r.stderr.split('\n').filter(Boolean), stdout: r.stdout };
  };

  it('names the line, the terminal and what was expected for each mistake', () => {
    const r = run(`  - name: gate-1
    kind: zk
    host: 10.0.0.1
    direction: both
  - name: gate-2
    kind: zk
    host: 10.0.0.2
    directionStates:
      1: maybe
  - name: gate-3
    kind: zk
    host: 10.0.0.3
    directionStates:
      checkIn: in
      256: out
      2: none
  - name: lobby
    kind: hikvision
    url: https://192.0.2.10
    directionStates:
      2: in
      checkIn: in
      CHECKIN: out
  - name: reader
    kind: serial
    path: /dev/ttyUSB0
    format: card
    directionStates:
      0: in
  - name: exit
    kind: zk
    host: 10.0.0.4
    direction: out
    directionStates:
      0: in
`);
    expect(r.status).toBe(78);
    const f = r.file;
    expect(r.lines).toEqual([
      `${f}:12: terminals[0] (gate-1).direction: must be one of "device", "in", "out", "alternate", "none", got the text "both"`,
      `${f}:17: terminals[1] (gate-2).directionStates.1: must be one of "in", "out", "none", got the text "maybe"`,
      `${f}:22: terminals[2] (gate-3).directionStates.checkIn: must be a state number 0-255 (0 check-in, 1 check-out, 2 break-out, 3 break-in, 4 overtime-in, 5 overtime-out, 255 undefined), got "checkIn"`,
      `${f}:23: terminals[2] (gate-3).directionStates.256: must be a state number 0-255 (0 check-in, 1 check-out, 2 break-out, 3 break-in, 4 overtime-in, 5 overtime-out, 255 undefined), got "256"`,
      `${f}:29: terminals[3] (lobby).directionStates.2: must be an attendanceStatus of the terminal (checkIn, checkOut, breakOut, breakIn, overtimeIn, overtimeOut), got "2"`,
      `${f}:31: terminals[3] (lobby).directionStates.CHECKIN: names the same state as checkIn`,
      `${f}:36: terminals[4] (reader).directionStates: a serial reader records no state: set direction: in or out for this terminal`,
      `${f}:42: terminals[5] (exit).directionStates: is read only with direction: device (this terminal has direction: out): remove one of them`,
    ]);
  });

  it('loads every good form: each setting, number keys (0-255) for ZK and push terminals, attendanceStatus names for Hikvision', () => {
    Journal.open({ path: tmp.path('j.db'), site: 'plant-a', mode: 'owner' }).close();
    const r =
      run(`  - { name: a, kind: zk, host: 10.0.0.1, direction: device, directionStates: { 0: in, 2: none, 255: out } }
  - { name: b, kind: zk, host: 10.0.0.2, direction: in }
  - { name: c, kind: serial, path: /dev/ttyUSB0, format: card, direction: out }
  - { name: d, kind: zk, host: 10.0.0.3, direction: alternate }
  - { name: e, kind: zk, host: 10.0.0.4, direction: none }
  - { name: f, kind: hikvision, url: https://192.0.2.10, directionStates: { breakOut: none, overtimeIn: out } }
  - { name: g, kind: adms, serial: CQZ7233461467, directionStates: { 2: none } }
adms:
  listen: 127.0.0.1:0
`);
    expect(r.lines).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('0\n');
  });
});
