/** `punchgate terminals users NAME` for a Dahua terminal: its people as it holds them. */
import { configKeyIn, type DahuaTerminalConfig } from '../../config/terminals.js';
import { terminalFaultError } from '../terminal-fault.js';
import type { AppContext } from '../../context.js';
import type { Journal } from '../../journal/journal.js';
import { codeProblem } from '../../punch.js';
import { DahuaSyncAdapter } from '../../roster/dahua/dahua-sync.js';
import { sourceDepsFor } from '../../sources/deps.js';
import { EXIT } from '../../util/exit-codes.js';
import { printable, safeJson } from '../../util/terminal-text.js';
import { padWidth } from '../../util/display-width.js';

export async function listDahuaUsers(
  ctx: AppContext,
  journal: Journal,
  t: DahuaTerminalConfig,
  json: boolean,
): Promise<number> {
  let users;
  const adapter = new DahuaSyncAdapter(
    t,
    sourceDepsFor(journal, ctx.logger, ctx.clock),
    configKeyIn(ctx.config, t.name),
  );
  try {
    users = (await adapter.read()).users;
  } catch (e) {
    throw terminalFaultError(ctx, t.name, adapter.describeFault(e));
  }
  if (json) {
    process.stdout.write(safeJson(users, 2) + '\n');
    return EXIT.OK;
  }
  process.stdout.write(`${'USER ID'.padEnd(24)} ${'NAME'.padEnd(24)} ${'ROLE'.padEnd(6)} CARD\n`);
  for (const u of users) {
    // A user id that is not a usable biometric code: its punches are refused (reported, never sent).
    const bad = codeProblem(u.code);
    process.stdout.write(
      `${printable(u.code, 64).padEnd(24)} ${padWidth(printable(u.name, 64), 24)} ${(u.privilege === 14 ? 'admin' : 'user').padEnd(6)} ${u.card || ''}${bad ? `  ! ${bad}: its punches are not accepted` : ''}\n`,
    );
  }
  return EXIT.OK;
}
