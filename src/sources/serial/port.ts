import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SerialTerminalConfig } from '../../config/terminals.js';
import { printable } from '../../util/terminal-text.js';

/**
 * The one thing the source needs from a serial device: bytes in, and a word when it goes
 * away. Kept narrow so that tests can hand the source a fake device.
 */
export interface SerialLink {
  /** Stop reading (the journal cannot take lines now); the kernel keeps what fits in its buffer. */
  pause(): void;
  resume(): void;
  /** Closes the device; `onClose` is not called for a close asked for here. */
  close(): Promise<void>;
}

export interface SerialLinkHandlers {
  onData(chunk: Buffer): void;
  /** The device closed by itself (unplugged, read error). Called at most once. */
  onClose(err: Error | null): void;
}

export type SerialLinkOptions = Pick<SerialTerminalConfig, 'path' | 'baudRate' | 'dataBits' | 'parity' | 'stopBits'>;

export type OpenSerialLink = (opts: SerialLinkOptions, handlers: SerialLinkHandlers) => Promise<SerialLink>;

/**
 * The `serialport` package, loaded on first use: its native binding and parsers cost a
 * daemon with only network terminals some 14 MB of memory for nothing.
 */
export function loadSerialport(): Promise<typeof import('serialport')> {
  return import('serialport');
}

/** Opens a real device with the `serialport` package. Rejects when it cannot be opened. */
export const openSerialPort: OpenSerialLink = async (opts, handlers) => {
  const { SerialPort } = await loadSerialport();
  const port = new SerialPort({
    path: opts.path,
    baudRate: opts.baudRate,
    dataBits: opts.dataBits,
    parity: opts.parity,
    stopBits: opts.stopBits,
    autoOpen: false,
    // Exclusive: a second reader on the same line would steal half of the punches.
    lock: true,
  });
  await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));

  let closing = false;
  let reported = false;
  let lastError: Error | null = null;
  const report = (err: Error | null) => {
    if (closing || reported) return;
    reported = true;
    handlers.onClose(err);
  };
  port.on('data', (chunk: Buffer) => handlers.onData(chunk));
  // A disconnect closes the stream with a DisconnectedError; other stream errors end the link too.
  port.on('close', (err: Error | null) => report(err ?? lastError ?? new Error('device closed')));
  port.on('error', (err: Error) => {
    lastError = err;
    if (port.isOpen) port.close();
    else report(err);
  });

  return {
    pause: () => void port.pause(),
    resume: () => void port.resume(),
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        if (!port.isOpen) return resolve();
        port.close(() => resolve());
      }),
  };
};

/** Names the likely cause of an open failure for the log (permissions, missing adapter). */
export function openFailureHint(err: unknown): string | undefined {
  const text = err instanceof Error ? err.message : String(err);
  if (/EACCES|Permission denied/i.test(text)) {
    return 'no permission: add the service user to the dialout group (usermod -aG dialout punchgate) and restart';
  }
  if (/ENOENT|No such file/i.test(text))
    return 'no such device: is the adapter plugged in? prefer a /dev/serial/by-id/ path';
  if (/Resource temporarily unavailable|EBUSY|lock/i.test(text)) return 'the device is held by another program';
  return undefined;
}

export interface SerialPortListing {
  paths: string[];
  /**
   * Set when the full listing (udev) failed and only the /dev fallback answered: why, in words
   * (not the raw `spawn udevadm ENOENT`), and that the configured path is used as it is.
   */
  listNote?: string;
}

/**
 * Serial devices on this box, for diagnostics only (the warning of a device that does not open
 * names them): nothing opens a device from this list. `SerialPort.list()` needs udevadm, which
 * small boxes and containers lack; then /dev is read directly.
 */
export async function listSerialPorts(timeoutMs = 3000): Promise<SerialPortListing> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    // The deadline may pass while the module loads, before the race below listens to it.
    timeout.catch(() => undefined);
    const { SerialPort } = await loadSerialport();
    const ports = await Promise.race([SerialPort.list(), timeout]);
    return { paths: ports.map((p) => p.path) };
  } catch (e) {
    return { paths: await scanDev(), listNote: listFailureWords(e instanceof Error ? e.message : String(e)) };
  } finally {
    clearTimeout(timer);
  }
}

/** Why the udev listing failed, in words for the admin. */
export function listFailureWords(error: string): string {
  const after = 'the serial devices listed are those found in /dev; the configured path is used as it is';
  // serialport's list() runs `udevadm info -e`: a box without udev (a container, a minimal image) has none.
  if (/udevadm/i.test(error) && /ENOENT|not found/i.test(error))
    return `the port list is not available without udev (udevadm is not installed): ${after}`;
  if (/^no answer within/.test(error)) return `the port list (udev) gave ${error}: ${after}`;
  return `the port list (udev) could not be read (${printable(error, 200)}): ${after}`;
}

async function scanDev(): Promise<string[]> {
  const out: string[] = [];
  const byId = '/dev/serial/by-id';
  for (const name of await readdir(byId).catch(() => [] as string[])) out.push(join(byId, name));
  const dev = await readdir('/dev').catch(() => [] as string[]);
  for (const name of dev) if (/^tty(USB|ACM|AMA|XRUSB)\d+$/.test(name)) out.push(join('/dev', name));
  return out.sort();
}
