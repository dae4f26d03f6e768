import type { TerminalCommandResult } from '../../journal/types.js';
import { userChangeOf } from './commands.js';
import type { PushRequest, ReceiverContext } from './handler-kit.js';

/**
 * Records a terminal's command results (a devicecmd post, or a query answered on querydata):
 * only commands handed to the address the results came from are settled (a stranger never gets
 * here: trust-gate.ts). Logs each settled command; throws when the journal cannot take them now,
 * so that the caller decides what the terminal is told. Returns the ids no command had.
 */
export function settleFrom(
  ctx: ReceiverContext,
  p: PushRequest,
  results: TerminalCommandResult[],
  answeredOn = '',
): string[] {
  const { cfg } = p.terminal;
  const { settled, unknown } = ctx.journal.settleCommands(
    cfg.name,
    cfg.serial,
    results,
    ctx.clock.now(),
    userChangeOf,
    p.address,
  );
  for (const c of settled)
    ctx.logger.info(
      { terminal: cfg.name, id: c.id, command: c.command.split('\t')[0], returnCode: c.returnCode },
      `${c.state === 'done' ? 'command done' : 'command failed on the terminal'}${answeredOn}`,
    );
  return unknown;
}
