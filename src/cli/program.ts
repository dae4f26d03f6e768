import { Command } from 'commander';
import { DEFAULT_CONFIG_PATH } from '../config/schema.js';
import { versionLine } from '../util/version.js';
import { registerCommands } from './commands/index.js';

/** Builds the `punchgate` program; separate from main.ts so tests can build it in-process. */
export function buildProgram(): Command {
  const program = new Command('punchgate')
    .description('Attendance device gateway: terminals -> journal -> HRMS')
    .version(versionLine(), '-V, --version', "print punchgate's version and its Node.js runtime's, and exit")
    .option('-c, --config <file>', 'config file', process.env.PUNCHGATE_CONFIG ?? DEFAULT_CONFIG_PATH)
    .option('--pretty', 'human-readable log lines instead of JSON')
    .option('--log-level <level>', 'trace, debug, info, warn, error')
    .showHelpAfterError();
  registerCommands(program);
  return program;
}
