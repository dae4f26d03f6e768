/**
 * User sync on a push terminal (ADMS): it is never connected to, it polls us. Its users are what
 * the journal knows (its uploads, and the commands it confirmed, see push-users.ts); the changes
 * are queued as user commands in the form of the protocol it speaks (`DATA UPDATE USERINFO` for the
 * attendance protocol, `DATA UPDATE user` and its `userauthorize` for Security PUSH) on its command
 * queue, and are 'queued' until the terminal takes them at its next poll and confirms them (devicecmd).
 *
 * Push terminals send no fingerprint templates we keep: the backup before a removal is the user
 * record only (code, name, card, privilege), so `restore-user` cannot bring back fingerprints.
 */
import type { AdmsTerminalConfig } from '../../config/terminals.js';
import type { PushStore } from '../../journal/push-store.js';
import type { TerminalCommand } from '../../journal/types.js';
import type { PushProtocol } from '../../journal/types.js';
import {
  authorizeUserCommand,
  deleteUserCommand,
  isUsersQuery,
  queryUsersCommand,
  updateUserCommand,
} from '../../sources/adms/index.js';
import type { ApplyOutcome, BackupSink, TerminalSnapshot, UserSyncAdapter } from '../adapter.js';
import { backUpBeforeRemoval } from '../removal-backup.js';
import type { Change, ChangeResult, TerminalProfile, TerminalUser } from '../types.js';
import { messageOf } from '../../util/errors.js';
import { localTime } from '../../util/local-time.js';
import { withPending } from './push-users.js';
import { NameCodec } from '../../util/name-codec.js';

/**
 * A name the journal holds with U+FFFD came in bytes that were no text in the terminal's
 * character set (a GBK terminal left at UTF-8): its meaning is unknown, it is never written back.
 */
function markUnreadable(u: TerminalUser): TerminalUser {
  return u.name.includes('\ufffd') ? { ...u, nameUnreadable: 'kept as U+FFFD in the journal' } : u;
}

/** ZK push firmware keeps 24 bytes of a name and of a PIN; cards are 32-bit numbers. */
const PUSH_PROFILE: TerminalProfile = {
  nameBytes: 24,
  codeBytes: 24,
  numericCodes: false,
  maxCard: 0xffffffff,
  maxUid: null,
};

/**
 * How long after a terminal confirmed `DATA QUERY USERINFO` its user upload may still be arriving.
 * Firmware reports the command done and uploads the users in separate requests, in either order
 * and in several parts: a sync that planned from a partial list would queue an "add" with Pri=0
 * for a user not uploaded yet, and demote an administrator among them. Past this time, a terminal
 * that uploaded nothing has no users.
 */
export const USERS_UPLOAD_GRACE_MS = 120_000;

export class PushSyncAdapter implements UserSyncAdapter {
  readonly kind = 'adms';
  readonly terminal: string;
  readonly address: string;
  /** Names in the terminal's character set (`encoding`, UTF-8 by default). */
  private readonly names: NameCodec;

  constructor(
    private readonly cfg: AdmsTerminalConfig,
    private readonly store: PushStore,
    private readonly now: () => number,
  ) {
    this.terminal = cfg.name;
    this.names = new NameCodec(cfg.encoding);
    const seenFrom = store.pushTerminal(cfg.name)?.address;
    this.address = `SN=${cfg.serial}${seenFrom ? ` from ${seenFrom}` : ''}`;
  }

  async read(): Promise<TerminalSnapshot> {
    const { cfg, store } = this;
    const query = this.lastUsersQuery();
    if (query?.state === 'done' && query.doneAt !== null && this.now() - query.doneAt < USERS_UPLOAD_GRACE_MS) {
      throw new Error(
        `it confirmed the request for its users (command ${query.id}) at ${localTime(query.doneAt)}, and their upload may still be arriving; nothing queued: run sync-users again after ${localTime(query.doneAt + USERS_UPLOAD_GRACE_MS)}`,
      );
    }
    const known = store.users(cfg.name, cfg.serial);
    const open = store.openCommands(cfg.name);
    if (known.length === 0 && !this.usersReported(query)) {
      const record = store.pushTerminal(cfg.name);
      if (!record || record.lastContactAt === null || record.serial !== cfg.serial) {
        throw new Error(
          `SN=${cfg.serial} has not contacted punchgate yet, so its users are not known; nothing queued (it must push to the receiver of punchgate run: adms.listen)`,
        );
      }
      const q = store.enqueue(cfg.name, queryUsersCommand(this.protocol()));
      throw new Error(
        `its users are not known yet: asked it to upload them (command ${q.command.id}, ${q.command.command}); run sync-users again after its next poll`,
      );
    }
    const { users, pending } = withPending(known, open);
    const notes =
      pending > 0
        ? [
            `${pending} user command(s) queued earlier are not confirmed yet: counted as done, not queued again (punchgate terminals commands ${cfg.name})`,
          ]
        : [];
    return { users: users.map(markUnreadable), profile: this.profile(), notes };
  }

  /** The newest request for the terminal's users, if one of the recent commands is one. */
  private lastUsersQuery(): TerminalCommand | undefined {
    return this.store.commands(this.cfg.name, { limit: 200 }).find((c) => isUsersQuery(c.command));
  }

  /** The protocol the terminal registered with: its commands must be in that form. */
  /** The push profile, with the terminal's character set for names when it is not UTF-8. */
  private profile(): TerminalProfile {
    if (this.names.isUtf8) return PUSH_PROFILE;
    return { ...PUSH_PROFILE, encodeName: (t) => this.names.encode(t), encoding: this.names.encoding };
  }

  private protocol(): PushProtocol {
    return this.store.registration(this.cfg.name, this.cfg.serial)?.protocol ?? 'attendance';
  }

  /** The terminal has uploaded its user table (a stamp kept), or answered a request for it. */
  private usersReported(query: TerminalCommand | undefined): boolean {
    const stamps = this.store.stamps(this.cfg.name, this.cfg.serial);
    if (stamps.OPERLOG !== undefined || stamps.USERINFO !== undefined) return true;
    return query?.state === 'done';
  }

  apply(changes: readonly Change[], backups: BackupSink): Promise<ApplyOutcome> {
    const results: ChangeResult[] = [];
    let broken: string | null = null;
    for (const c of changes) {
      if (broken) {
        results.push({ status: 'not-attempted', error: broken });
        continue;
      }
      if (c.action === 'remove') {
        const unsaved = backUpBeforeRemoval(backups, this.cfg.name, this.cfg.serial, c);
        if (unsaved) {
          results.push(unsaved);
          continue;
        }
      }
      if (c.action !== 'remove' && c.name.includes('\ufffd')) {
        // The push protocol writes the whole user: its unknown name would go back as garbage.
        results.push({
          status: 'failed',
          error: `not queued: the terminal's name for ${c.code} is unknown (it came in another character set than the terminal's encoding, ${this.names.encoding}), and a push command rewrites the name; set encoding: for this terminal and let it upload its users again`,
        });
        continue;
      }
      const protocol = this.protocol();
      const commands =
        c.action === 'remove'
          ? [deleteUserCommand(c.code, protocol)]
          : [
              updateUserCommand(
                {
                  pin: c.code,
                  name: c.name,
                  card: c.card ? String(c.card) : '',
                  privilege: c.action === 'update' ? c.privilege : 0,
                },
                protocol,
              ),
              ...(protocol === 'security' ? [authorizeUserCommand(c.code)] : []),
            ];
      try {
        for (const command of commands) this.store.enqueue(this.cfg.name, command);
        results.push({ status: 'queued' });
      } catch (e) {
        broken = `not queued: the journal refused an earlier command (${messageOf(e)})`;
        results.push({ status: 'failed', error: `could not be queued: ${messageOf(e)}` });
      }
    }
    const notes = results.some((r) => r.status === 'queued')
      ? [
          `${this.cfg.name} applies the queued changes at its next poll; punchgate terminals commands ${this.cfg.name} shows their results`,
        ]
      : [];
    return Promise.resolve({ results, warnings: [], notes });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
