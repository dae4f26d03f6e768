import type { Command } from 'commander';
import { registerImport } from './import.js';
import { registerPunches } from './punches.js';
import { registerStatus } from './status.js';

/** Each command lives in its own file and registers itself here. */
export function registerCommands(program: Command): void {
  registerImport(program);
  registerPunches(program);
  registerStatus(program);
}
