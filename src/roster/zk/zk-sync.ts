/**
 * User sync on a ZK terminal: USER_WRQ for additions and updates (in the record layout the
 * terminal serves; an update patches the fields it changes in the record the terminal gave),
 * DELETE_USER for removals after the user and its templates are saved in the journal, all with
 * the device disabled and REFRESHDATA after. The result of every change is checked by reading
 * the users back, so the report says what the terminal holds, not what it acknowledged.
 */
import { encodeUserRecord, patchUserRecord } from '../../sources/zk/protocol/index.js';
import type { ApplyOutcome, BackupSink, TerminalSnapshot, UserSyncAdapter } from '../adapter.js';
import { verifyByReadBack } from '../read-back.js';
import { backUpBeforeRemoval } from '../removal-backup.js';
import { INTERRUPTED, isStopped } from '../interrupt.js';
import type { Change, ChangeResult } from '../types.js';
import { messageOf } from '../../util/errors.js';
import type { TerminalFault } from '../../sources/poll-outcome.js';
import { isConnectionLoss, toTerminalUser, type ZkUserRow, type ZkUserTerminal } from './zk-terminal.js';

export class ZkSyncAdapter implements UserSyncAdapter {
  readonly kind = 'zk';
  private rows: ZkUserRow[] = [];

  constructor(private readonly t: ZkUserTerminal) {}

  get terminal(): string {
    return this.t.name;
  }

  get address(): string {
    return this.t.address;
  }

  describeFault(e: unknown): TerminalFault {
    return this.t.fault(e);
  }

  async read(): Promise<TerminalSnapshot> {
    this.rows = await this.t.readUsers();
    return { users: this.rows.map((r) => toTerminalUser(r.user, r.nameUnreadable)), profile: this.t.profile() };
  }

  async apply(changes: readonly Change[], backups: BackupSink, stop?: AbortSignal): Promise<ApplyOutcome> {
    const results: ChangeResult[] = changes.map(() => ({ status: 'not-attempted' }));
    if (changes.length === 0) return { results, warnings: await this.t.enableAgain() };
    const rawByUid = new Map(this.rows.map((r) => [r.user.uid, r.raw]));
    const warnings: string[] = [];

    let templates = new Map<number, { finger: number; valid: number; template: Buffer }[]>();
    let templateError: string | null = null;
    if (changes.some((c) => c.action === 'remove')) {
      try {
        templates = await this.t.readTemplates();
      } catch (e) {
        if (isConnectionLoss(e)) throw e;
        templateError = `fingerprint templates could not be read to back them up (${messageOf(e)}); not removed`;
      }
    }
    const fpVersion = changes.some((c) => c.action === 'remove') ? await this.t.fingerprintVersion() : null;

    let broken: string | null = null;
    warnings.push(
      ...(await this.t.withDeviceDisabled(async () => {
        // The table as it is now that nobody can enrol at the keypad: a uid taken or changed since
        // the plan's read is never written over (USER_WRQ writes whoever holds the uid).
        const now = new Map((await this.t.readUsers()).map((r) => [r.user.uid, r]));
        for (const [uid, row] of now) rawByUid.set(uid, row.raw);
        for (const [i, c] of changes.entries()) {
          // Interrupted: stop writing, so that the terminal is enabled again at once.
          const skip = broken ?? (isStopped(stop) ? INTERRUPTED : null);
          if (skip) {
            results[i] = { status: 'not-attempted', error: skip };
            continue;
          }
          const stale = changedSinceRead(c, now);
          if (stale) {
            results[i] = { status: 'failed', error: stale };
            continue;
          }
          try {
            results[i] = await this.applyOne(c, rawByUid, templates, templateError, fpVersion, backups);
          } catch (e) {
            if (isConnectionLoss(e)) {
              broken = `not attempted: the connection broke at an earlier change (${messageOf(e)})`;
              results[i] = { status: 'unknown', error: `no answer (${messageOf(e)})` };
            } else {
              results[i] = { status: 'failed', error: `refused by the terminal: ${messageOf(e)}` };
            }
          }
        }
      })),
    );
    await this.verify(changes, results, warnings);
    return { results, warnings };
  }

  private async applyOne(
    c: Change,
    rawByUid: Map<number, Buffer>,
    templates: Map<number, { finger: number; valid: number; template: Buffer }[]>,
    templateError: string | null,
    fpVersion: string | null,
    backups: BackupSink,
  ): Promise<ChangeResult> {
    const uid = c.uid as number;
    if (c.action === 'add') {
      const name = this.nameBytes(c.name);
      if (name === null) return { status: 'failed', error: this.unwritable(c.name) };
      const record = encodeUserRecord(
        { uid, privilege: 0, password: '', name: c.name, card: c.card, group: 1, userId: c.code },
        this.t.recordSize,
        name,
      );
      await this.t.client.writeUser(record);
      return { status: 'applied' };
    }
    if (c.action === 'update') {
      const raw = rawByUid.get(uid);
      if (!raw) return { status: 'failed', error: `uid ${uid} was not in the user table read` };
      // Only the fields changed: a name left alone keeps the terminal's own bytes (whatever they mean).
      if (!c.fields.includes('name')) {
        await this.t.client.writeUser(patchUserRecord(raw, { card: c.card }));
        return { status: 'applied' };
      }
      const name = this.nameBytes(c.name);
      if (name === null) return { status: 'failed', error: this.unwritable(c.name) };
      await this.t.client.writeUser(patchUserRecord(raw, { name: name ?? c.name, card: c.card }));
      return { status: 'applied' };
    }
    if (templateError) return { status: 'failed', error: templateError };
    const fingers = (templates.get(uid) ?? []).map((t) => ({ finger: t.finger, valid: t.valid, template: t.template }));
    const unsaved = backUpBeforeRemoval(backups, this.t.name, this.t.serial, c, { uid, fpVersion, templates: fingers });
    if (unsaved) return unsaved;
    await this.t.client.deleteUser(uid);
    return { status: 'applied', backedUpFingers: fingers.length };
  }

  /**
   * The name's bytes in the terminal's character set; undefined for UTF-8 (written as text, cut at
   * a character); null when the character set cannot hold it (the planner refuses those first).
   */
  private nameBytes(name: string): Buffer | undefined | null {
    return this.t.names.isUtf8 ? undefined : this.t.encodeName(name);
  }

  private unwritable(name: string): string {
    return `name "${name}" cannot be written in ${this.t.names.encoding} (the terminal's encoding): not written rather than shown wrong`;
  }

  /** Reads the users back: a change is applied only if the terminal shows it. */
  private verify(changes: readonly Change[], results: ChangeResult[], warnings: string[]): Promise<void> {
    return verifyByReadBack(
      changes,
      results,
      warnings,
      async () => new Map((await this.t.readUsers()).map((r) => [r.user.uid, toTerminalUser(r.user)])),
      (c, now) => {
        const u = now.get(c.uid as number);
        return c.action === 'remove'
          ? !u || u.code !== c.code
          : u !== undefined && u.code === c.code && u.name.trim() === c.name && u.card === c.card;
      },
    );
  }

  close(): Promise<void> {
    return this.t.close();
  }
}

/**
 * Why a change planned from the users read before no longer fits the table as it is (a person
 * enrolled at the keypad at the uid an addition was given, another user at an update's or a
 * removal's uid), or null. Found by a trial: the addition was written over the person enrolled
 * meanwhile, whose fingerprints then opened as the new code.
 */
function changedSinceRead(c: Change, now: ReadonlyMap<number, ZkUserRow>): string | null {
  const row = now.get(c.uid as number);
  if (c.action === 'add') {
    return row
      ? `uid ${c.uid} was taken on the terminal after its users were read (now user ${row.user.userId}, enrolled meanwhile?): not written over it; run sync-users again`
      : null;
  }
  if (row?.user.userId === c.code) return null;
  return `uid ${c.uid} holds ${row ? `user ${row.user.userId}` : 'nobody'} now, not ${c.code} as when the terminal's users were read: not ${c.action === 'remove' ? 'removed' : 'changed'}; run sync-users again`;
}
