import { closeSync, existsSync, openSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { registerSimSerial, runSimSerial, type SimSerialCliOptions } from '../../src/cli/commands/sim-serial.js';
import { createPtyPair, SocatMissingError } from '../../src/sim/serial/index.js';
import { SerialSource } from '../../src/sources/serial/index.js';
import { EXIT } from '../../src/util/exit-codes.js';
import { silentLogger } from '../../src/util/logger.js';
import { MemorySink, requireSocat, serialConfig } from './helpers.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/tmp.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const base: SimSerialCliOptions = { format: 'regex', rate: 0, noise: 0, eol: 'crlf', baudRate: 9600 };

function io(until: Promise<void> = new Promise(() => {})) {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t), until } };
}

async function withEnvPath<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const saved = process.env.PATH;
  process.env.PATH = path;
  try {
    return await fn();
  } finally {
    process.env.PATH = saved;
  }
}

describe('punchgate sim serial', () => {
  beforeAll(requireSocat);

  it('--link: creates the device, waits for a reader, writes the lines, removes the device at the end', async () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const link = dir.path('ttySIM');
    const c = io();
    const run = runSimSerial({ ...base, link, format: 'card', count: 20, quiet: true, linger: 100 }, c.io);
    await waitFor(() => existsSync(link), 10_000, 'the device link');
    await waitFor(() => /waiting for a reader/.test(c.err.join('')), 20_000, 'the waiting message');
    expect(existsSync(`${link}.sim`)).toBe(false);

    const sink = new MemorySink();
    const source = new SerialSource({
      config: serialConfig({ path: link, format: 'card', reconnectMinMs: 50 }),
      sink,
      logger: silentLogger(),
      clock: { now: () => Date.now() },
    });
    cleanups.push(() => source.stop());
    await source.start();
    expect(await run).toBe(EXIT.OK);
    await waitFor(() => sink.punches.length === 20, 10_000, '20 card punches');
    expect(sink.punches[0]?.biometricCode).toBe('0004521000');
    expect(c.err.join('')).toMatch(/wrote 20 punch lines and 0 noise lines/);
    expect(existsSync(link)).toBe(false);
  });

  it('--device: writes to an existing device and prints each line', async () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const pair = await createPtyPair(dir.path('tty'));
    cleanups.push(() => pair.close());
    const sink = new MemorySink();
    const source = new SerialSource({
      config: serialConfig({ path: pair.devicePath }),
      sink,
      logger: silentLogger(),
      clock: { now: () => Date.now() },
    });
    cleanups.push(() => source.stop());
    await source.start();
    const c = io();
    expect(
      await runSimSerial({ ...base, device: pair.peerPath, count: 5, codes: ['7', '8'], noise: 1, seed: 3 }, c.io),
    ).toBe(EXIT.OK);
    await waitFor(
      () => sink.punches.length === 5 && source.status().malformed === 5,
      10_000,
      '5 punches and 5 noise lines',
    );
    const printed = c.out.join('').trim().split('\n');
    expect(printed.filter((l) => !l.startsWith('# noise')).map((l) => l.split(',')[0])).toEqual([
      '7',
      '8',
      '7',
      '8',
      '7',
    ]);
    expect(printed.filter((l) => l.startsWith('# noise'))).toHaveLength(5);
  });

  it('--reader rdm6300 and wiegand-keypad: frames with checksums and bare key bytes, read as cards by the default framing', async () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const pair = await createPtyPair(dir.path('tty'));
    cleanups.push(() => pair.close());
    const sink = new MemorySink();
    const source = new SerialSource({
      config: serialConfig({ path: pair.devicePath, format: 'card' }),
      sink,
      logger: silentLogger(),
      clock: { now: () => Date.now() },
    });
    cleanups.push(() => source.stop());
    await source.start();
    const rdm = io();
    expect(
      await runSimSerial(
        { ...base, format: 'card', reader: 'rdm6300', device: pair.peerPath, count: 4, noise: 1 },
        rdm.io,
      ),
    ).toBe(EXIT.OK);
    await waitFor(() => sink.punches.length === 4 && source.status().badChecksums === 4, 10_000, '4 cards, 4 bad');
    expect(
      rdm.out
        .join('')
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('#')),
    ).toEqual(sink.punches.map((p) => p.biometricCode));
    const kp = io();
    expect(
      await runSimSerial(
        {
          ...base,
          format: 'card',
          reader: 'wiegand-keypad',
          device: pair.peerPath,
          count: 2,
          codes: ['0000123478', '0000123479'],
        },
        kp.io,
      ),
    ).toBe(EXIT.OK);
    await waitFor(() => sink.punches.length === 6, 10_000, '2 more cards');
    expect(sink.punches.slice(4).map((p) => p.biometricCode)).toEqual(['0000123478', '0000123479']);
    expect(source.status().keypadKeys).toBe(2);
    expect(kp.out.join('')).toMatch(/# keypad key: 3/);
    expect(kp.err.join('')).toMatch(/wrote 2 punch lines and 0 noise lines, 2 keypad keys/);
  });

  it('stops cleanly on Ctrl-C while waiting for a reader', async () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const link = dir.path('ttySIM');
    let stop: () => void = () => {};
    const c = io(new Promise<void>((r) => (stop = r)));
    const run = runSimSerial({ ...base, link }, c.io);
    await waitFor(() => existsSync(link), 10_000, 'the device link');
    stop();
    expect(await run).toBe(EXIT.OK);
    expect(existsSync(link)).toBe(false);
  });

  it('stops at once on SIGTERM while a reader has the device open but does not read (its buffer full)', async () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const link = dir.path('ttySIM');
    let stop: () => void = () => {};
    const c = io(new Promise<void>((r) => (stop = r)));
    const run = runSimSerial({ ...base, link, linger: 0 }, c.io);
    await waitFor(() => existsSync(link), 10_000, 'the device link');
    // A reader that opens the device and never reads: the pseudo-terminal's buffer fills and the
    // simulator's write waits for room that never comes (a stuck daemon, a reader on a breakpoint).
    const fd = openSync(link, 'r');
    cleanups.push(() => closeSync(fd));
    // The buffer is full once the lines written stop growing (three looks in a row).
    let seen = -1;
    let same = 0;
    await waitFor(
      () => {
        const n = c.out.length;
        same = n > 0 && n === seen ? same + 1 : 0;
        seen = n;
        return same >= 3;
      },
      10_000,
      'the reader buffer to fill',
    );
    stop();
    const code = await Promise.race([run, new Promise((r) => setTimeout(() => r('still running'), 3000))]);
    expect(code).toBe(EXIT.OK);
    expect(c.err.join('')).toMatch(/wrote \d+ punch lines/);
  });

  it('refuses card numbers an RDM6300 cannot send at once, before any device is made or a reader waited for', async () => {
    // Found by a rehearsal: --codes 4500C5D1E9 (the frame's hex, not the printed number) was said
    // only once a reader had connected, as a failed write (exit 75, "temporary").
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const link = dir.path('ttySIM');
    const c = io();
    const o = { ...base, link, format: 'card' as const, reader: 'rdm6300-held' as const, codes: ['4500C5D1E9'] };
    await expect(runSimSerial(o, c.io)).rejects.toMatchObject({
      exitCode: EXIT.USAGE,
      message: expect.stringMatching(/^--codes 4500C5D1E9: an rdm6300-held reader sends the number printed on the tag/),
    });
    expect(existsSync(link)).toBe(false);
    expect(c.err.join('')).not.toMatch(/waiting for a reader/);
  });

  it('refuses --link with --device, and says clearly when socat is missing', async () => {
    await expect(runSimSerial({ ...base, link: '/tmp/a', device: '/tmp/b' }, io().io)).rejects.toMatchObject({
      exitCode: EXIT.CONFIG,
    });
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    await withEnvPath(dir.dir, async () => {
      await expect(runSimSerial({ ...base, link: dir.path('tty') }, io().io)).rejects.toThrow(
        /socat is not installed.*--device/,
      );
      await expect(createPtyPair(dir.path('tty'))).rejects.toBeInstanceOf(SocatMissingError);
    });
  });

  it('registers under an existing sim command and validates option values', async () => {
    const program = new Command('punchgate').exitOverride();
    program.command('sim').command('hrms');
    registerSimSerial(program);
    const sim = program.commands.filter((c) => c.name() === 'sim');
    expect(sim).toHaveLength(1);
    expect(sim[0]?.commands.map((c) => c.name())).toEqual(['hrms', 'serial']);
    const serial = sim[0]?.commands[1] as Command;
    serial.exitOverride().configureOutput({ writeErr: () => {} });
    await expect(program.parseAsync(['sim', 'serial', '--rate', 'fast'], { from: 'user' })).rejects.toBeInstanceOf(
      CommanderError,
    );
    await expect(program.parseAsync(['sim', 'serial', '--noise', '2'], { from: 'user' })).rejects.toThrow(
      /from 0 to 1/,
    );
    await expect(program.parseAsync(['sim', 'serial', '--format', 'csv'], { from: 'user' })).rejects.toThrow(
      /regex, card/,
    );
  });
});
