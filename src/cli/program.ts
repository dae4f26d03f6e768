import { Command } from 'commander';
import { DEFAULT_CONFIG_PATH } from '../config/schema.js';
import { punchgateVersion } from '../util/version.js';
import { registerCommands } from './commands/index.js';

/** Builds the `punchgate` program; separate from main.ts so tests can build it in-process. */
export function buildProgram(): Command {
  const program = new Command('punchgate')
    .description('Attendance device gateway: terminals -> journal -> HRMS')
    .version(punchgateVersion(), '-V, --version', 'print the version and exit')
    .option('-c, --config <file>', 'config file', process.env.PUNCHGATE_CONFIG ?? DEFAULT_CONFIG_PATH)
    .option('--pretty', 'human-readable log lines instead of JSON (the same as --log-format text)')
    .option(
      '--log-format <format>',
      'json, text or journal (lines with their priority for systemd); default: journal under systemd (JOURNAL_STREAM), else json',
    )
    .option('--log-level <level>', 'trace, debug, info, warn, error')
    .showHelpAfterError();
  registerCommands(program);
  return program;
}
