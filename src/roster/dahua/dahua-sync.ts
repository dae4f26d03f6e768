/**
 * User sync on a Dahua terminal: AccessUser.cgi insertMulti / updateMulti / removeMulti (with the
 * card by AccessCard.cgi) on newer firmware, `AccessControlCard` records by recordUpdater.cgi
 * insert / update / remove on older firmware (see src/sources/dahua/users.ts); `userApi` in the
 * config chooses, `auto` asks the firmware. Every change is checked by reading the users back.
 *
 * The password rule of the source holds here too (DahuaPoller.withClient): not tried while a
 * refusal's wait lasts, a refusal recorded for the daemon. The backup before a removal is the user
 * record only: the CGI gives no templates back.
 */
import type { DahuaTerminalConfig } from '../../config/terminals.js';
import {
  DahuaApiError,
  DahuaPoller,
  dahuaUrl,
  type DahuaClientFactory,
  type DahuaUser,
  type UserApi,
} from '../../sources/dahua/index.js';
import type { DahuaClient } from '../../sources/dahua/index.js';
import type { SourceDeps } from '../../sources/types.js';
import { messageOf } from '../../util/errors.js';
import type { ApplyOutcome, BackupSink, TerminalSnapshot, UserSyncAdapter } from '../adapter.js';
import { verifyByReadBack } from '../read-back.js';
import type { Change, ChangeResult, TerminalProfile, TerminalUser } from '../types.js';

/** Dahua keeps 32 bytes of a name (CardName/UserName) and of a UserID; card numbers are text. */
export const DAHUA_PROFILE: TerminalProfile = {
  nameBytes: 32,
  codeBytes: 32,
  numericCodes: false,
  maxCard: 0xffffffff,
  maxUid: null,
};

const ADMINISTRATOR = 14;
const REASONS = {
  inactive: 'sync-users: inactive in the roster',
  absent: 'sync-users: not in the roster (--remove-absent)',
};

const cardNumber = (cardNo: string): number =>
  /^\d{1,10}$/.test(cardNo) && Number(cardNo) <= 0xffffffff ? Number(cardNo) : 0;

export function toTerminalUsers(users: readonly DahuaUser[]): TerminalUser[] {
  return users.map((u) => ({
    uid: null,
    code: u.userId,
    name: u.name,
    card: cardNumber(u.cards[0] ?? ''),
    privilege: u.admin ? ADMINISTRATOR : 0,
  }));
}

export class DahuaSyncAdapter implements UserSyncAdapter {
  readonly kind = 'dahua';
  readonly terminal: string;
  readonly address: string;
  private readonly poller: DahuaPoller;
  private serial = '';
  private api: UserApi | undefined;
  private users = new Map<string, DahuaUser>();

  constructor(
    private readonly cfg: DahuaTerminalConfig,
    deps: SourceDeps,
    factory?: DahuaClientFactory,
  ) {
    this.terminal = cfg.name;
    this.address = dahuaUrl(cfg);
    this.poller = new DahuaPoller(cfg, deps, factory);
  }

  private async apiOf(c: DahuaClient): Promise<UserApi> {
    this.api ??= this.cfg.userApi === 'auto' ? await c.users.detect() : this.cfg.userApi;
    return this.api;
  }

  private async readPeople(c: DahuaClient): Promise<DahuaUser[]> {
    const list = await c.users.list(await this.apiOf(c));
    this.users = new Map(list.map((u) => [u.userId, u]));
    return list;
  }

  async read(): Promise<TerminalSnapshot> {
    return this.poller.withClient(async (c) => {
      this.serial = (await c.identity()).serial;
      return { users: toTerminalUsers(await this.readPeople(c)), profile: DAHUA_PROFILE };
    });
  }

  async apply(changes: readonly Change[], backups: BackupSink): Promise<ApplyOutcome> {
    const results: ChangeResult[] = changes.map(() => ({ status: 'not-attempted' }));
    const warnings: string[] = [];
    if (changes.length === 0) return { results, warnings };
    try {
      await this.poller.withClient(async (c) => {
        const api = await this.apiOf(c);
        let broken: string | null = null;
        for (const [i, change] of changes.entries()) {
          if (broken) {
            results[i] = { status: 'not-attempted', error: broken };
            continue;
          }
          try {
            results[i] = await this.applyOne(c, api, change, backups);
          } catch (e) {
            if (e instanceof DahuaApiError) {
              results[i] = { status: 'failed', error: `refused by the terminal: ${messageOf(e)}` };
            } else {
              broken = `not attempted: an earlier change got no answer (${messageOf(e)})`;
              results[i] = { status: 'unknown', error: `no answer (${messageOf(e)})` };
            }
          }
        }
      });
    } catch (e) {
      warnings.push(`the terminal could not be used for the changes: ${messageOf(e)}`);
    }
    await verifyByReadBack(
      changes,
      results,
      warnings,
      () => this.poller.withClient(async (c) => new Map((await this.readPeople(c)).map((u) => [u.userId, u]))),
      (c, now) => {
        const u = now.get(c.code);
        if (c.action === 'remove') return !u;
        if (!u || u.name.trim() !== c.name) return false;
        const cardTouched = c.action === 'add' ? c.card !== 0 : c.fields.includes('card');
        return !cardTouched || (c.card ? u.cards.join() === String(c.card) : u.cards.length === 0);
      },
    );
    return { results, warnings };
  }

  private async applyOne(c: DahuaClient, api: UserApi, change: Change, backups: BackupSink): Promise<ChangeResult> {
    const had = this.users.get(change.code);
    if (change.action === 'remove') {
      try {
        backups.save({
          terminal: this.terminal,
          serial: this.serial,
          fpVersion: null,
          user: { uid: null, code: change.code, name: change.name, card: change.card, privilege: change.privilege },
          reason: REASONS[change.reason],
          templates: [],
        });
      } catch (e) {
        return {
          status: 'failed',
          error: `the backup could not be saved in the journal (${messageOf(e)}); not removed`,
        };
      }
      await c.users.remove(api, { userId: change.code, recNo: had?.recNo });
      return { status: 'applied' };
    }
    const card = change.card ? String(change.card) : '';
    if (change.action === 'add') {
      await c.users.add(api, { userId: change.code, name: change.name, card });
      return { status: 'applied' };
    }
    await c.users.update(api, {
      userId: change.code,
      name: change.name,
      card,
      recNo: had?.recNo,
      oldCards: had?.cards ?? [],
    });
    return { status: 'applied' };
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
