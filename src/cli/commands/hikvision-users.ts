import { printable, safeJson } from '../../util/terminal-text.js';
import { padWidth } from '../../util/display-width.js';
import { configKeyIn, type HikvisionTerminalConfig } from '../../config/terminals.js';
import { terminalFaultError } from '../terminal-fault.js';
import type { AppContext } from '../../context.js';
import type { Journal } from '../../journal/journal.js';
import { sourceDepsFor } from '../../sources/deps.js';
import { describeHikFault, HikvisionPoller, type HikCard, type HikUser } from '../../sources/hikvision/index.js';
import { EXIT } from '../../util/exit-codes.js';

/**
 * `punchgate terminals users NAME` for a Hikvision terminal: every user with its cards. A
 * password refused earlier (by punchgate run or here) is not tried again before its wait is
 * over, and a refusal here is recorded for the daemon too: the device locks the account after
 * a few failures, whoever makes them. Names are padded by screen columns (padWidth), as the ZK
 * and Dahua lists are: a Chinese name takes two columns a character.
 */
export async function listHikvisionUsers(
  ctx: AppContext,
  journal: Journal,
  cfg: HikvisionTerminalConfig,
  json: boolean,
): Promise<number> {
  const poller = new HikvisionPoller(cfg, sourceDepsFor(journal, ctx.logger, ctx.clock));
  let users: HikUser[];
  let cards: HikCard[];
  try {
    ({ users, cards } = await poller.withClient(async (c) => ({
      users: await c.users.list(),
      cards: await c.users.cards().catch(() => []),
    })));
  } catch (e) {
    throw terminalFaultError(ctx, cfg.name, describeHikFault(e, cfg, configKeyIn(ctx.config, cfg.name)));
  }
  const cardsOf = (u: HikUser) => cards.filter((c) => c.employeeNo === u.employeeNo).map((c) => c.cardNo);
  if (json) {
    process.stdout.write(
      safeJson(
        users.map((u) => ({ ...u, cards: cardsOf(u) })),
        2,
      ) + '\n',
    );
    return EXIT.OK;
  }
  process.stdout.write(
    `${'EMPLOYEE NO'.padEnd(16)} ${'NAME'.padEnd(24)} ${'TYPE'.padEnd(8)} ${'FP'.padStart(3)} ${'FACE'.padStart(4)}  CARDS\n`,
  );
  for (const u of users) {
    process.stdout.write(
      `${printable(u.employeeNo, 64).padEnd(16)} ${padWidth(printable(u.name, 64), 24)} ${printable(u.userType, 16).padEnd(8)} ${String(u.numOfFP).padStart(3)} ${String(u.numOfFace).padStart(4)}  ${cardsOf(
        u,
      )
        .map((c) => printable(c, 64))
        .join(' ')}\n`,
    );
  }
  return EXIT.OK;
}
