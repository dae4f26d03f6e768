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
  describeDahuaFault,
  dahuaUrl,
  NoCardForRecordError,
  type DahuaClientFactory,
  type DahuaUser,
  type UserApi,
} from '../../sources/dahua/index.js';
import type { DahuaClient } from '../../sources/dahua/index.js';
import type { SourceDeps } from '../../sources/types.js';
import type { TerminalFault } from '../../sources/poll-outcome.js';
import type { ApplyOutcome, BackupSink, TerminalSnapshot, UserSyncAdapter } from '../adapter.js';
import {
  ADMINISTRATOR,
  applyInOrder,
  heldCard,
  cardTextOf,
  holdsCard,
  HTTP_TERMINAL_PROFILE,
} from '../http-terminal-sync.js';
import { verifyByReadBack } from '../read-back.js';
import { backUpBeforeRemoval } from '../removal-backup.js';
import type { Change, ChangeResult, TerminalProfile, TerminalUser } from '../types.js';

/** Dahua keeps 32 bytes of a name (CardName/UserName) and of a UserID; card numbers are text. */
export const DAHUA_PROFILE: TerminalProfile = HTTP_TERMINAL_PROFILE;

export function toTerminalUsers(users: readonly DahuaUser[]): TerminalUser[] {
  return users.map((u) => ({
    uid: null,
    code: u.userId,
    name: u.name,
    card: heldCard(u.cards),
    cards: u.cards,
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

  /** `key` names the terminal in the config (`terminals[2]`), for the fixes of describeFault. */
  constructor(
    private readonly cfg: DahuaTerminalConfig,
    deps: SourceDeps,
    private readonly key: string,
    factory?: DahuaClientFactory,
  ) {
    this.terminal = cfg.name;
    this.address = dahuaUrl(cfg);
    this.poller = new DahuaPoller(cfg, deps, factory);
  }

  describeFault(e: unknown): TerminalFault {
    return describeDahuaFault(e, this.cfg, this.key);
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

  apply(changes: readonly Change[], backups: BackupSink, stop?: AbortSignal): Promise<ApplyOutcome> {
    return applyInOrder<{ c: DahuaClient; api: UserApi }>(changes, {
      withClient: (fn) => this.poller.withClient(async (c) => fn({ c, api: await this.apiOf(c) })),
      isRefusal: (e) => e instanceof DahuaApiError || e instanceof NoCardForRecordError,
      applyOne: ({ c, api }, change) => this.applyOne(c, api, change, backups),
      verify: (results, warnings) => this.verify(changes, results, warnings),
      stop,
    });
  }

  /** Reads the users back: a change is applied only if the terminal shows it. */
  private verify(changes: readonly Change[], results: ChangeResult[], warnings: string[]): Promise<void> {
    return verifyByReadBack(
      changes,
      results,
      warnings,
      () => this.poller.withClient(async (c) => new Map((await this.readPeople(c)).map((u) => [u.userId, u]))),
      (c, now) => {
        const u = now.get(c.code);
        if (c.action === 'remove') return !u;
        if (!u || u.name.trim() !== c.name) return false;
        const cardTouched = c.action === 'add' ? c.card !== 0 : c.fields.includes('card');
        return !cardTouched || holdsCard(u.cards, c.card);
      },
    );
  }

  private async applyOne(c: DahuaClient, api: UserApi, change: Change, backups: BackupSink): Promise<ChangeResult> {
    const had = this.users.get(change.code);
    if (change.action === 'remove') {
      const unsaved = backUpBeforeRemoval(backups, this.terminal, this.serial, change);
      if (unsaved) return unsaved;
      await c.users.remove(api, { userId: change.code, recNo: had?.recNo });
      return { status: 'applied' };
    }
    // A change that leaves the card alone keeps it as the terminal spells it (the record update
    // of older firmware rewrites it, and `0012` is the same card as `12`: nothing to respell).
    const keepsCard = change.action === 'update' && !change.fields.includes('card') && had?.cards[0] !== undefined;
    const card = keepsCard ? had.cards[0]! : cardTextOf(change);
    // Older firmware keeps a user only as a card record: a user without a card is not written
    // there at all, rather than given a made-up card (the badge with that number would open the
    // door and punch as them).
    if (api === 'recordUpdater' && !card) return { status: 'failed', error: noCardOnRecordFirmware(change.code) };
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

/** Why a cardless user is not written to recordUpdater firmware, and the two fixes. */
export function noCardOnRecordFirmware(code: string): string {
  return (
    `not written: user ${code} has no card, and this terminal's firmware (recordUpdater.cgi) keeps a user only ` +
    `as a card record (a card number made up for them would open the door for that badge as them); ` +
    `give them a card in the HRMS, ` +
    `or update the terminal's firmware to one with AccessUser.cgi`
  );
}
