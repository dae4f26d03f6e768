import type { BlockList } from 'node:net';
import { allowed, allowList } from '../../util/allow-list.js';
import type { AdmsTerminalConfig } from '../../config/terminals.js';
import { NameCodec } from '../../util/name-codec.js';

export { allowed };

/** A configured push terminal as the receiver knows it. */
export interface PushTerminal {
  cfg: AdmsTerminalConfig;
  /** Null: any address may push for it. */
  allow: BlockList | null;
  /**
   * Its names' character set (`encoding`). One per terminal, kept while it is configured: the
   * table for writing a legacy set costs some 26,000 decodes, too much for every poll.
   */
  names: NameCodec;
}

export type Resolution =
  | { kind: 'ok'; terminal: PushTerminal }
  | { kind: 'unknown' }
  | { kind: 'address'; terminal: PushTerminal }
  /** Removed a moment ago (a SIGHUP changing it): retry soon, not a stranger. */
  | { kind: 'reconfiguring' };

/** How long a removed serial is answered "try again" instead of "unknown": a reload re-adds it in between. */
const RETIRED_MS = 10_000;

/** `::ffff:192.168.1.5` (an IPv4 client on a dual-stack socket) is `192.168.1.5`. */
export function normalizeAddress(address: string | undefined): string {
  const a = address ?? '';
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  return m ? m[1]! : a;
}

/**
 * The push terminals the receiver accepts, by serial number (compared without regard to case).
 * Sources register and unregister their terminal here; the HTTP server keeps running.
 */
export class TerminalDirectory {
  private readonly bySerial = new Map<string, PushTerminal>();
  private readonly retired = new Map<string, number>();

  add(cfg: AdmsTerminalConfig): void {
    const key = cfg.serial.toUpperCase();
    this.bySerial.set(key, { cfg, allow: allowList(cfg.allowFrom), names: new NameCodec(cfg.encoding) });
    this.retired.delete(key);
  }

  remove(name: string, now: number): void {
    for (const [key, t] of this.bySerial) {
      if (t.cfg.name !== name) continue;
      this.bySerial.delete(key);
      this.retired.set(key, now);
    }
  }

  list(): PushTerminal[] {
    return [...this.bySerial.values()];
  }

  byName(name: string): PushTerminal | undefined {
    return this.list().find((t) => t.cfg.name === name);
  }

  resolve(serial: string, address: string, now: number): Resolution {
    const key = serial.toUpperCase();
    const terminal = this.bySerial.get(key);
    if (!terminal) {
      const gone = this.retired.get(key);
      if (gone !== undefined && now - gone < RETIRED_MS) return { kind: 'reconfiguring' };
      if (gone !== undefined) this.retired.delete(key);
      return { kind: 'unknown' };
    }
    return allowed(terminal.allow, address) ? { kind: 'ok', terminal } : { kind: 'address', terminal };
  }
}
