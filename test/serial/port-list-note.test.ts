import { afterEach, describe, expect, it } from 'vitest';
import type { OpenSerialLink } from '../../src/sources/serial/index.js';
import { listSerialPorts, SerialSource } from '../../src/sources/serial/index.js';
import { captureLogger, MemorySink, serialConfig } from './helpers.js';
import { waitFor } from '../helpers/wait.js';
import { tempDir } from '../helpers/tmp.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** PATH set to an empty folder: no udevadm, as on a container or a minimal image without udev. */
function withoutUdev(): void {
  const dir = tempDir();
  const saved = process.env.PATH;
  process.env.PATH = dir.dir;
  cleanups.push(dir.cleanup, () => void (process.env.PATH = saved));
}

const RAW = /spawn|ENOENT/;

describe('the serial port list on a box without udev', () => {
  it('says in words that the list is /dev only and the configured path is used as it is', async () => {
    withoutUdev();
    const listing = await listSerialPorts();
    expect(Array.isArray(listing.paths)).toBe(true);
    expect(listing.listNote).toMatch(
      /^the port list is not available without udev \(udevadm is not installed\): .*the configured path is used as it is$/,
    );
    expect(listing.listNote).not.toMatch(RAW);
  });

  it('a device that does not open: the note comes once, with the first warning, never the raw spawn error', async () => {
    withoutUdev();
    let failure = new Error('Error: No such file or directory, cannot open /dev/ttyUSB9');
    const open: OpenSerialLink = async () => {
      throw failure;
    };
    const log = captureLogger();
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const config = serialConfig({ path: dir.path('ttyUSB9'), reconnectMinMs: 20, reconnectMaxMs: 20 });
    const source = new SerialSource({
      config,
      sink: new MemorySink(),
      logger: log.logger,
      clock: Date,
      openLink: open,
    });
    cleanups.push(() => source.stop());
    const warnings = () => log.entries.filter((e) => e.msg === 'cannot open serial device; retrying');
    await source.start();
    await waitFor(() => warnings().length === 1, 10_000, 'the first warning');
    // Another kind of failure: warned again, the list's note not again.
    failure = new Error('Error: Resource temporarily unavailable, cannot lock port');
    await waitFor(() => warnings().length === 2, 10_000, 'the second warning');
    const [first, second] = warnings();
    expect(first!.listNote).toMatch(/not available without udev.*the configured path is used as it is/);
    expect(second!.listNote).toBeUndefined();
    expect(log.raw.join('')).not.toMatch(/spawn udevadm/);
    expect(log.raw.join('')).not.toMatch(/listError/);
  });
});
