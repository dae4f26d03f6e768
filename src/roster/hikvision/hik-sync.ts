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
import {
  HikApiError,
  HikvisionPoller,
  type HikCard,
  type HikClientFactory,
  type HikvisionClient,
} from '../../sources/hikvision/index.js';
import type { SourceDeps } from '../../sources/types.js';
import type { ApplyOutcome, BackupSink, TerminalSnapshot, UserSyncAdapter } from '../adapter.js';
import { verifyByReadBack } from '../read-back.js';
import type { Change, ChangeResult } from '../types.js';
import { messageOf } from '../../util/errors.js';
import { cardsOf, HIK_PROFILE, toTerminalUsers } from './hik-users.js';

const REASONS = {
  inactive: 'sync-users: inactive in the roster',
  absent: 'sync-users: not in the roster (--remove-absent)',
};

export class HikSyncAdapter implements UserSyncAdapter {
  readonly kind = 'hikvision';
  readonly terminal: string;
  readonly address: string;
  private readonly poller: HikvisionPoller;
  private serial = '';
  private cards: HikCard[] = [];

  constructor(cfg: HikvisionTerminalConfig, deps: SourceDeps, factory?: HikClientFactory) {
    this.terminal = cfg.name;
    this.address = cfg.url;
    this.poller = new HikvisionPoller(cfg, deps, factory);
  }

  async read(): Promise<TerminalSnapshot> {
    return this.poller.withClient(async (c) => {
      this.serial = (await c.deviceInfo()).serialNumber;
      const { users, cards } = await readPeople(c);
      this.cards = cards;
      return { users: toTerminalUsers(users, cards), profile: HIK_PROFILE };
    });
  }

  async apply(changes: readonly Change[], backups: BackupSink): Promise<ApplyOutcome> {
    const results: ChangeResult[] = changes.map(() => ({ status: 'not-attempted' }));
    const warnings: string[] = [];
    if (changes.length === 0) return { results, warnings };
    try {
      await this.poller.withClient(async (c) => {
        let broken: string | null = null;
        for (const [i, change] of changes.entries()) {
          if (broken) {
            results[i] = { status: 'not-attempted', error: broken };
            continue;
          }
          try {
            results[i] = await this.applyOne(c, change, backups);
          } catch (e) {
            if (e instanceof HikApiError) {
              results[i] = { status: 'failed', error: `refused by the terminal: ${messageOf(e)}` };
            } else {
              // No answer (the connection broke, a timeout, the password refused): stop here.
              broken = `not attempted: an earlier change got no answer (${messageOf(e)})`;
              results[i] = { status: 'unknown', error: `no answer (${messageOf(e)})` };
            }
          }
        }
      });
    } catch (e) {
      warnings.push(`the terminal could not be used for the changes: ${messageOf(e)}`);
    }
    await this.verify(changes, results, warnings);
    return { results, warnings };
  }

  private async applyOne(c: HikvisionClient, change: Change, backups: BackupSink): Promise<ChangeResult> {
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
      if (change.card) await this.giveCard(c, change.code, change.card);
      return { status: 'applied' };
    }
    if (change.fields.includes('name')) await c.users.rename(change.code, change.name);
    if (change.fields.includes('card')) await this.giveCard(c, change.code, change.card);
    return { status: 'applied' };
  }

  /** The roster's card becomes the user's only card (0: no card). */
  private async giveCard(c: HikvisionClient, employeeNo: string, card: number): Promise<void> {
    const cardNo = card ? String(card) : '';
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
        const cardHeld = !u || !cardTouched || (c.card ? u.cards.join() === String(c.card) : u.cards.length === 0);
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
