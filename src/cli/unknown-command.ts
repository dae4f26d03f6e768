import { nearMiss } from '../config/near-miss.js';
import type { Command } from 'commander';

/**
 * A command word that names no command, found before Commander parses the line. Commander shows
 * the group's help, exit 0, for `punchgate sim zk --help`, as if `zk` were not there (help is
 * looked at before the unknown word); a script then takes it for a simulator that exists. Here
 * the line is walked down the command tree as Commander would: at a group that takes no
 * arguments of its own, a word that is not one of its commands is unknown, help or not.
 * Returns the message (the commands there are, to pick from), or undefined.
 */
export function unknownCommandOf(program: Command, args: readonly string[]): string | undefined {
  let cmd = program;
  const valued = (c: Command, a: string): boolean => {
    for (let p: Command | null = c; p; p = p.parent)
      if (p.options.some((o) => (o.long === a || o.short === a) && (o.required || o.optional))) return true;
    return false;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return undefined;
    if (a.startsWith('-')) {
      if (!a.includes('=') && valued(cmd, a)) i++;
      continue;
    }
    if (cmd.commands.length === 0 || cmd.registeredArguments.length > 0) return undefined;
    const next = cmd.commands.find((c) => c.name() === a || c.aliases().includes(a));
    if (next) {
      cmd = next;
      continue;
    }
    if (a === 'help') return undefined;
    const path = [];
    for (let p: Command | null = cmd; p; p = p.parent) path.unshift(p.name());
    const names = cmd.commands.map((c) => c.name());
    // A typo (`stauts`, `sim hrsm`) names the command meant, as a typo in a config key does.
    const meant = nearMiss(a, names);
    return `error: unknown command '${a}' for '${path.join(' ')}': the commands there are ${names.join(', ')}${meant ? `; did you mean ${meant}?` : ''}`;
  }
  return undefined;
}
