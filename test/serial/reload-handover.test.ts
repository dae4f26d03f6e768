import { closeSync, openSync, symlinkSync, writeSync } from 'node:fs';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import type { TerminalRecord } from '../../src/journal/types.js';
import { SourceSet } from '../../src/daemon/sources.js';
import { createSource } from '../../src/sources/build.js';
import { SerialPortHandover } from '../../src/sources/serial/index.js';
import type { SourceDeps } from '../../src/sources/types.js';
import { createPtyPair, startSerialSim } from '../../src/sim/serial/index.js';
import { captureLogger, requireSocat, serialConfig } from './helpers.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/tmp.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A daemon's sources (SourceSet, the real serial source) reading one pty, reloaded as SIGHUP does. */
async function setup() {
  const dir = tempDir();
  cleanups.push(dir.cleanup);
  const journal = Journal.open({ path: dir.path('journal.db'), site: 'test', mode: 'owner' });
  cleanups.push(() => journal.close());
  const path = dir.path('ttyUSB0');
  const pair = await createPtyPair(path);
  cleanups.push(() => pair.close());
  const log = captureLogger();
  const records = new Map<string, TerminalRecord>();
  const deps: SourceDeps = {
    sink: journal,
    ledger: {
      get: (name) => records.get(name),
      update: (name, patch) => {
        const r = { ...(records.get(name) ?? { name }), ...patch } as TerminalRecord;
        records.set(name, r);
        return r;
      },
    },
    deliveryCheck: journal.queries,
    state: journal.sourceState,
    logger: log.logger,
    clock: { now: () => Date.now() },
    serialHandover: new SerialPortHandover(),
  };
  const sources = new SourceSet(createSource, deps, log.logger);
  cleanups.push(() => sources.stopAll());
  const codes = () =>
    (journal.db.prepare('SELECT biometric_code AS c FROM punches ORDER BY id').all() as { c: string }[]).map(
      (r) => r.c,
    );
  const peer = openSync(pair.peerPath, 'w');
  cleanups.push(() => closeSync(peer));
  const write = (s: string) => writeSync(peer, s);
  return { path, pair, sources, codes, write, log };
}

describe('a reload that changes a serial terminal keeps its device open', () => {
  beforeAll(requireSocat);

  it('the line being read when the reload comes is journalled whole, and nothing printed meanwhile is lost', async () => {
    const { path, pair, sources, codes, write, log } = await setup();
    await sources.apply([serialConfig({ path, reconnectMinMs: 100 })]);
    write('1001,2026-11-22 08:00:00\r\n1002,2026-11-22 08:0');
    await waitFor(() => codes().includes('1001'), 10_000, 'the first line');

    // SIGHUP with the terminal's pattern-independent settings changed: its source restarts.
    await sources.apply([serialConfig({ path, reconnectMinMs: 150 })]);
    write('0:01\r\n1003,2026-11-22 08:00:02\r\n');
    await waitFor(() => codes().includes('1003'), 10_000, 'the line after the reload');
    // Old code: the device was closed, the head of 1002 went with the old reader and its tail
    // "0:01" was refused by the new one as a malformed line.
    expect(codes()).toEqual(['1001', '1002', '1003']);
    expect(log.entries.some((e) => /malformed/.test(e.msg))).toBe(false);

    // A burst while two more reloads come: every line of it is journalled once.
    const sent: string[] = [];
    const burst = startSerialSim({
      path: pair.peerPath,
      format: 'regex',
      rate: 0,
      count: 3000,
      startAt: Date.parse('2026-11-22T09:00:00Z'),
      onLine: (l) => sent.push(l),
    });
    await sources.apply([serialConfig({ path, reconnectMinMs: 200 })]);
    await sources.apply([serialConfig({ path, reconnectMinMs: 250 })]);
    await burst.done;
    await waitFor(() => codes().length === 3 + 3000, 20_000, 'every line of the burst');
    expect(sent.length).toBe(3000);
  });

  it('a new baud rate reopens the device (not held by the old reader) and reads on', async () => {
    const { path, sources, codes, write, log } = await setup();
    await sources.apply([serialConfig({ path })]);
    write('2001,2026-11-22 08:00:00\r\n');
    await waitFor(() => codes().includes('2001'), 10_000, 'the first line');
    await sources.apply([serialConfig({ path, baudRate: 19200 })]);
    await waitFor(
      () => log.entries.filter((e) => e.msg === 'serial device open').length === 2,
      10_000,
      'the device opened anew',
    );
    write('2002,2026-11-22 08:00:01\r\n');
    await waitFor(() => codes().includes('2002'), 10_000, 'a line at the new rate');
    expect(log.entries.some((e) => /cannot open/.test(e.msg))).toBe(false);
  });
  it('a new path to the same device (a by-id name for the tty) opens it at once: the old one is not held', async () => {
    const { path, sources, codes, write, log } = await setup();
    await sources.apply([serialConfig({ path })]);
    write('3001,2026-11-22 08:00:00\r\n');
    await waitFor(() => codes().includes('3001'), 10_000, 'the first line');
    const alias = `${path}-by-id`;
    symlinkSync(path, alias);
    await sources.apply([serialConfig({ path: alias })]);
    await waitFor(
      () => log.entries.filter((e) => e.msg === 'serial device open').length === 2,
      10_000,
      'the device opened by its new name',
    );
    write('3002,2026-11-22 08:00:01\r\n');
    await waitFor(() => codes().includes('3002'), 10_000, 'a line read by the new name');
    // Held open for the old path, the device would be locked against its new name for seconds.
    expect(log.entries.some((e) => /cannot open/.test(e.msg))).toBe(false);
  });
});
