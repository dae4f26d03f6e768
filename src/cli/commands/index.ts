import type { Command } from 'commander';

/** Each command lives in its own file and registers itself here. */
export function registerCommands(_program: Command): void {}
