/**
 * One ZK terminal as user sync, restore and template copy see it: its users with their raw
 * records, the record layout it serves, its fingerprint templates and algorithm version, and
 * writes made with the device disabled (re-enabled afterwards, even when a write failed or the
 * connection broke: then over a new connection).
 */
import type { ZkTerminalConfig } from '../../config/terminals.js';
import {
  ZkConnectionError,
  ZkTimeoutError,
  type ZkClient,
  type ZkFreeSizes,
  type ZkTemplate,
  type ZkUser,
  type UserRecordSize,
} from '../../sources/zk/client/index.js';
import { defaultClientFactory, type ClientFactory } from '../../sources/zk/poll.js';
import { nameBytesOf, numericUserIds, userNameBytes } from '../../sources/zk/protocol/index.js';
import { hexBytes, NameCodec } from '../../util/name-codec.js';
import { describeZkFault } from '../../sources/zk/fault.js';
import type { TerminalFault } from '../../sources/poll-outcome.js';
import type { TerminalProfile, TerminalUser } from '../types.js';
import { messageOf } from '../../util/errors.js';
import { nameProblem, storedName } from '../plan.js';
import { quoted } from '../../util/terminal-text.js';

export interface ZkUserRow {
  /** The user, its name read in the terminal's character set (`encoding`). */
  user: ZkUser;
  raw: Buffer;
  /** `bytes d5 c5 c8 fd`: the name's bytes when they are no text in that character set. */
  nameUnreadable?: string;
}

/**
 * An error of a ZK terminal in one line for a command's message: a connection lost or refused
 * in the status's words with the fix; anything else (a refusal, a protocol error) as it is.
 */
export function faultText(t: ZkUserTerminal, e: unknown): string {
  if (!isConnectionLoss(e)) return messageOf(e);
  const f = t.fault(e);
  return `${f.cause} — ${f.fix}`;
}

/** True for errors after which the connection is gone (the next operation needs a new one). */
export function isConnectionLoss(e: unknown): boolean {
  return e instanceof ZkConnectionError || e instanceof ZkTimeoutError;
}

export class ZkUserTerminal {
  readonly client: ZkClient;
  readonly name: string;
  readonly address: string;
  private info: ZkFreeSizes | null = null;
  private serialNumber = '';
  private fpVersion: string | null | undefined;
  private size: UserRecordSize = 72;
  /** Names in the terminal's character set (`encoding`, UTF-8 by default). */
  readonly names: NameCodec;

  /** `key` names the terminal in the config (`terminals[2]`), for the fixes of `fault`. */
  constructor(
    readonly cfg: ZkTerminalConfig,
    factory: ClientFactory = defaultClientFactory,
    private readonly key = `terminals[${cfg.name}]`,
  ) {
    this.client = factory(cfg);
    this.name = cfg.name;
    this.address = `${cfg.host}:${cfg.port}`;
    this.names = new NameCodec(cfg.encoding);
  }

  /** Why the terminal could not be reached or read, in the words of the status and `check`, with the fix. */
  fault(e: unknown): TerminalFault {
    return describeZkFault(e, this.cfg, this.key);
  }

  get serial(): string {
    return this.serialNumber;
  }

  /** The user record layout the terminal serves (72 bytes; 28 on old firmware). */
  get recordSize(): UserRecordSize {
    return this.size;
  }

  async open(): Promise<void> {
    if (this.client.connected) return;
    await this.client.connect();
    this.info = await this.client.getInfo();
    this.serialNumber = await this.client.getSerialNumber().catch(() => '');
  }

  /** Users with their raw records. An empty terminal's layout follows the transport (UDP: old firmware). */
  async readUsers(): Promise<ZkUserRow[]> {
    await this.open();
    this.info = await this.client.getInfo();
    const table = await this.client.getUserTable({ count: this.info.users });
    this.size = table.recordSize ?? (this.client.transportKind === 'udp' ? 28 : 72);
    return table.users.map((row) => this.withName(row));
  }

  /** The row with its name read from the record's bytes in the terminal's character set. */
  private withName(row: { user: ZkUser; raw: Buffer }): ZkUserRow {
    const bytes = userNameBytes(row.raw);
    const { text, valid } = this.names.decode(bytes);
    const user = { ...row.user, name: text };
    return valid ? { user, raw: row.raw } : { user, raw: row.raw, nameUnreadable: `bytes ${hexBytes(bytes)}` };
  }

  /** A name's bytes in the terminal's character set, or null when it cannot hold them. */
  encodeName(text: string): Buffer | null {
    return this.names.encode(text);
  }

  /**
   * A name from elsewhere (a backup, another terminal) as a new record on this terminal takes it:
   * cut to the field, with its bytes in the terminal's character set (none for UTF-8: written as
   * text). `refused`: why it cannot be written (then the user goes on without a name): a name kept
   * with U+FFFD (its bytes were no text where it was read) would put that garbage on the screen,
   * and one the character set cannot hold would show as other characters.
   */
  nameForRecord(name: string): { name: string; bytes?: Buffer } | { refused: string } {
    if (name.includes('\ufffd')) {
      return {
        refused: `name ${quoted(name)} was no text when it was read (kept with U+FFFD); written without a name rather than as garbage. Set the name again with sync-users, or set the terminal's encoding to the one its firmware uses`,
      };
    }
    const profile = this.profile();
    const stored = storedName(name, profile);
    const problem = nameProblem(stored, profile);
    if (problem) return { refused: `${problem}; written without a name` };
    const bytes = this.names.isUtf8 ? undefined : this.names.encode(stored);
    return bytes ? { name: stored, bytes } : { name: stored };
  }

  profile(): TerminalProfile {
    return {
      nameBytes: nameBytesOf(this.size),
      ...(this.names.isUtf8 ? {} : { encodeName: (t: string) => this.names.encode(t), encoding: this.names.encoding }),
      codeBytes: 24,
      numericCodes: numericUserIds(this.size),
      maxCard: 0xffffffff,
      maxUid: 0xffff,
      // A capacity of 0, or below what it holds, is firmware that does not say: no limit then.
      ...(this.info && this.info.userCapacity > 0 && this.info.userCapacity >= this.info.users
        ? { maxUsers: this.info.userCapacity }
        : {}),
    };
  }

  /** Templates by uid (none read when the terminal reports no fingerprint, as pyzk does). */
  async readTemplates(): Promise<Map<number, ZkTemplate[]>> {
    await this.open();
    const out = new Map<number, ZkTemplate[]>();
    if ((await this.client.getInfo()).fingerprints === 0) return out;
    const { templates } = await this.client.getTemplates();
    for (const t of templates) out.set(t.uid, [...(out.get(t.uid) ?? []), t]);
    return out;
  }

  /** `~ZKFPVersion`, or null when the terminal does not say. */
  async fingerprintVersion(): Promise<string | null> {
    if (this.fpVersion === undefined) {
      await this.open();
      this.fpVersion = await this.client.getOption('~ZKFPVersion');
    }
    return this.fpVersion;
  }

  /**
   * Runs `writes` with the device disabled, then REFRESHDATA and ENABLEDEVICE, over a new
   * connection when the old one broke. Returns warnings for what could not be done afterwards.
   */
  async withDeviceDisabled(writes: () => Promise<void>): Promise<string[]> {
    await this.client.disableDevice();
    const warnings: string[] = [];
    try {
      await writes();
    } finally {
      await this.reconnectIfLost(warnings);
      try {
        await this.client.refreshData();
      } catch (e) {
        warnings.push(`REFRESHDATA failed (${messageOf(e)}): the terminal may use the changes only after a restart`);
      }
      await this.reconnectIfLost(warnings);
      try {
        await this.client.enableDevice();
      } catch (e) {
        warnings.push(
          `could not enable ${this.name} again (${messageOf(e)}): it may show "working" and refuse punches; run the command again or restart the terminal`,
        );
      }
    }
    return warnings;
  }

  /**
   * ENABLEDEVICE alone, for a real run with nothing to write: an earlier run that broke off
   * between its DISABLEDEVICE and its ENABLEDEVICE (killed, the box's power cut, the connection
   * lost at that moment) left the terminal showing "working", taking no punches, and the protocol
   * cannot tell. Enabling an enabled terminal changes nothing. Returns a warning when it failed.
   */
  async enableAgain(): Promise<string[]> {
    try {
      await this.client.enableDevice();
      return [];
    } catch (e) {
      return [
        `could not make sure ${this.name} is enabled (${messageOf(e)}): if it shows "working", run the command again or restart the terminal`,
      ];
    }
  }

  /** Best effort: a new connection when the last one broke. */
  private async reconnectIfLost(warnings: string[]): Promise<void> {
    if (this.client.connected) return;
    try {
      await this.client.connect();
    } catch (e) {
      warnings.push(`reconnect to ${this.address} failed: ${messageOf(e)}`);
    }
  }

  async close(): Promise<void> {
    try {
      await this.client.disconnect();
    } catch {
      this.client.destroy();
    }
  }
}

export function toTerminalUser(u: ZkUser, nameUnreadable?: string): TerminalUser {
  return {
    uid: u.uid,
    code: u.userId,
    name: u.name,
    card: u.card,
    privilege: u.privilege,
    ...(nameUnreadable !== undefined ? { nameUnreadable } : {}),
  };
}
