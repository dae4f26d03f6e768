import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cliSandbox } from '../helpers/cli.js';

/**
 * A ZKTeco stick holds more than the punch log: `user.dat`, the terminal's users as binary records
 * (public tools that read a stick's files take "attlog.dat and, optionally, user.dat"; 72-byte
 * records on colour-screen firmware: number, privilege, password, name, card, group, user id).
 * An admin who imports the whole stick (`punchgate import /media/usb/*`) was told of user.dat
 * that it is "not a USB export or a CSV", which it is. The records here are our own, in that shape.
 */
describe('import: the other files of a USB stick', () => {
  let box: ReturnType<typeof cliSandbox>;
  afterEach(() => box.tmp.cleanup());

  it("user.dat is said to hold the terminal's users, not punches; the punch log beside it is imported", async () => {
    box = cliSandbox({ terminals: [{ name: 'gate-2', kind: 'zk', host: '127.0.0.1' }] });
    const user = (n: number, name: string, id: string) => {
      const r = Buffer.alloc(72);
      r.writeUInt16LE(n, 0);
      r.write(name, 11, 'utf8');
      r.write(id, 48, 'ascii');
      return r;
    };
    writeFileSync(box.tmp.path('user.dat'), Buffer.concat([user(1, 'Ana Lima', '1001'), user(2, 'Wang Fang', '1002')]));
    writeFileSync(box.tmp.path('1_attlog.dat'), '     1001\t2026-11-30 08:01:02\t1\t0\t1\t0\r\n');
    const r = await box.cli('import', '--terminal', 'gate-2', box.tmp.path('1_attlog.dat'), box.tmp.path('user.dat'));
    expect(r.status, r.stderr).toBe(65);
    expect(r.stdout).toContain('1_attlog.dat: 1 new, 0 duplicates, 0 bad');
    expect(r.stderr).toContain(
      `${box.tmp.path('user.dat')}:1: the file is not text: a stick's user.dat holds the terminal's users, not punches (the punches are in its *_attlog.dat)`,
    );
    expect(r.stderr).not.toContain('not a USB export');
  });
});
