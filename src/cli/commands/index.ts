import type { Command } from 'commander';
import { registerImport } from './import.js';
import { registerPoll } from './poll.js';
import { registerPunches } from './punches.js';
import { registerStatus } from './status.js';
import { registerTerminals } from './terminals.js';

/** Each command lives in its own file and registers itself here. */
export function registerCommands(program: Command): void {
  registerImport(program);
  registerPoll(program);
  registerPunches(program);
  registerStatus(program);
  registerTerminals(program);
}
