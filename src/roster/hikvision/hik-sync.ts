/**
 * User sync on a Hikvision terminal (ISAPI): UserInfo/SetUp adds (UserInfo/Record on firmware
 * without SetUp), UserInfo/Modify renames (doors, validity and rights stay as set on the device),
 * CardInfo/SetUp gives the roster's card (the user's other cards are then removed with
 * CardInfo/Delete), UserInfoDetail/Delete removes a user with its cards, fingerprints and faces.
 * Every change is checked by reading the users back, as on ZK terminals.
 *
 * The password rule of the source holds here too (see HikvisionPoller.withClient): not tried
 * while a refusal's wait lasts, a refusal recorded for the daemon. The password is never in a
 * message. The backup before a removal is the user record only: ISAPI gives no templates back.
 */
import type { HikvisionTerminalConfig } from '../../config/terminals.js';
import { addressShown } from '../../config/web-address.js';
import {
  describeHikFault,
  HikApiError,
  HikvisionPoller,
  type HikCard,
  type HikClientFactory,
  type HikvisionClient,
} from '../../sources/hikvision/index.js';
import type { SourceDeps } from '../../sources/types.js';
import type { TerminalFault } from '../../sources/poll-outcome.js';
import type { ApplyOutcome, BackupSink, TerminalSnapshot, UserSyncAdapter } from '../adapter.js';
import { applyInOrder, cardTextOf, holdsCard } from '../http-terminal-sync.js';
import { backUpBeforeRemoval } from '../removal-backup.js';
import { verifyByReadBack } from '../read-back.js';
import type { Change, ChangeResult } from '../types.js';
import { cardsOf, HIK_PROFILE, toTerminalUsers } from './hik-users.js';

export class HikSyncAdapter implements UserSyncAdapter {
  readonly kind = 'hikvision';
  readonly terminal: string;
  readonly address: string;
  private readonly poller: HikvisionPoller;
  private serial = '';
  private cards: HikCard[] = [];

  /** `key` names the terminal in the config (`terminals[2]`), for the fixes of describeFault. */
  constructor(
    private readonly cfg: HikvisionTerminalConfig,
    deps: SourceDeps,
    private readonly key: string,
    factory?: HikClientFactory,
  ) {
    this.terminal = cfg.name;
    this.address = addressShown(cfg.url);
    this.poller = new HikvisionPoller(cfg, deps, factory);
  }

  describeFault(e: unknown): TerminalFault {
    return describeHikFault(e, this.cfg, this.key);
  }

  async read(): Promise<TerminalSnapshot> {
    return this.poller.withClient(async (c) => {
      this.serial = (await c.deviceInfo()).serialNumber;
      const { users, cards } = await readPeople(c);
      this.cards = cards;
      return { users: toTerminalUsers(users, cards), profile: HIK_PROFILE };
    });
  }

  apply(changes: readonly Change[], backups: BackupSink, stop?: AbortSignal): Promise<ApplyOutcome> {
    return applyInOrder<HikvisionClient>(changes, {
      withClient: (fn) => this.poller.withClient(fn),
      isRefusal: (e) => e instanceof HikApiError,
      applyOne: (c, change) => this.applyOne(c, change, backups),
      verify: (results, warnings) => this.verify(changes, results, warnings),
      stop,
    });
  }

  private async applyOne(c: HikvisionClient, change: Change, backups: BackupSink): Promise<ChangeResult> {
    if (change.action === 'remove') {
      const unsaved = backUpBeforeRemoval(backups, this.terminal, this.serial, change);
      if (unsaved) return unsaved;
      await c.users.delete([change.code]);
      return { status: 'applied' };
    }
    if (change.action === 'add') {
      try {
        await c.users.setUp({ employeeNo: change.code, name: change.name });
      } catch (e) {
        if (!(e instanceof HikApiError && e.unsupported)) throw e;
        await c.users.setUp({ employeeNo: change.code, name: change.name }, undefined, 'record');
      }
      if (change.card) await this.giveCard(c, change.code, cardTextOf(change));
      return { status: 'applied' };
    }
    if (change.fields.includes('name')) await c.users.rename(change.code, change.name);
    if (change.fields.includes('card')) await this.giveCard(c, change.code, cardTextOf(change));
    return { status: 'applied' };
  }

  /** The roster's card becomes the user's only card ('': no card). */
  private async giveCard(c: HikvisionClient, employeeNo: string, cardNo: string): Promise<void> {
    if (cardNo) await c.users.setUpCard({ employeeNo, cardNo });
    await c.users.deleteCards(cardsOf(this.cards, employeeNo).filter((n) => n !== cardNo));
  }

  /** Reads the users back: a change is applied only if the terminal shows it. */
  private verify(changes: readonly Change[], results: ChangeResult[], warnings: string[]): Promise<void> {
    return verifyByReadBack(
      changes,
      results,
      warnings,
      () =>
        this.poller.withClient(async (c) => {
          const { users, cards } = await readPeople(c);
          return new Map(users.map((u) => [u.employeeNo, { name: u.name, cards: cardsOf(cards, u.employeeNo) }]));
        }),
      (c, now) => {
        const u = now.get(c.code);
        const cardTouched = c.action === 'add' ? c.card !== 0 : c.action === 'update' && c.fields.includes('card');
        const cardHeld = !u || !cardTouched || holdsCard(u.cards, c.card);
        return c.action === 'remove' ? !u : u !== undefined && u.name.trim() === c.name && cardHeld;
      },
    );
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

async function readPeople(c: HikvisionClient) {
  const users = await c.users.list();
  const cards = users.length > 0 ? await c.users.cards() : [];
  return { users, cards };
}
