import type { Command } from 'commander';
import { EXIT, ExitError } from '../util/exit-codes.js';

/**
 * Refuses the options of a command group given to one of its subcommands that does not take them
 * (`punches export --since 2026-11-01`, `terminals listen gate-1 --json`): commander hands them to
 * the group itself, so the subcommand never saw them and exported, retried or released everything
 * they were meant to narrow (a new-user trial). Exit 64, before the subcommand does anything.
 * punchgate's own options (`--config`, `--pretty`...) belong to every command.
 */
export function refuseGroupOptions(cmd: Command): void {
  const own = new Set(cmd.options.map((o) => o.attributeName()));
  const stray: string[] = [];
  for (let group = cmd.parent; group?.parent; group = group.parent) {
    for (const o of group.options)
      if (!own.has(o.attributeName()) && group.getOptionValueSource(o.attributeName()) === 'cli')
        stray.push(o.long ?? o.flags);
  }
  if (stray.length === 0) return;
  const path: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) path.unshift(c.name());
  const group = path.slice(0, -1).join(' ');
  const takes = cmd.options.map((o) => o.long ?? o.flags);
  throw new ExitError(
    `${path.join(' ')} does not take ${stray.join(', ')} (${stray.length === 1 ? 'it is an option' : 'they are options'} of punchgate ${group} itself): it takes ${takes.length > 0 ? takes.join(', ') : 'no options'}; nothing was done`,
    EXIT.USAGE,
  );
}
