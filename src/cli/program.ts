import { Command, type CommanderError } from 'commander';
import { EXIT } from '../util/exit-codes.js';
import { DEFAULT_CONFIG_PATH } from '../config/schema.js';
import { versionLine } from '../util/version.js';
import { registerCommands } from './commands/index.js';

/** Commander's own exits: help and version as it asks (0), every error of the command line 64. */
function usageExit(e: CommanderError): never {
  const asked = e.code === 'commander.helpDisplayed' || e.code === 'commander.version';
  process.exit(asked ? e.exitCode : EXIT.USAGE);
}

/** Builds the `punchgate` program; separate from main.ts so tests can build it in-process. */
export function buildProgram(): Command {
  const program = new Command('punchgate')
    .description('Attendance device gateway: terminals -> journal -> HRMS')
    .version(versionLine(), '-V, --version', "print punchgate's version and its Node.js runtime's, and exit")
    .option('-c, --config <file>', 'config file', process.env.PUNCHGATE_CONFIG ?? DEFAULT_CONFIG_PATH)
    .option('--pretty', 'human-readable log lines instead of JSON (the same as --log-format text)')
    .option(
      '--log-format <format>',
      'json, text or journal (lines with their priority for systemd); default: journal under systemd (JOURNAL_STREAM), else json',
    )
    .option('--log-level <level>', 'trace, debug, info, warn, error')
    // A command typed wrong: its one line, where the options are listed, and exit 64 (EX_USAGE),
    // never the whole help nor the 1 a command gives for "refused" (employees) or "a check failed".
    .showHelpAfterError('(add --help to the command to see its options)')
    .exitOverride(usageExit)
    // `punchgate run --help` (and every command's) lists the options every command takes: --config,
    // --pretty, --log-level (not a parent's own, such as the listing options of `punches`).
    .configureHelp({
      showGlobalOptions: true,
      visibleGlobalOptions: (cmd) => {
        let root = cmd;
        while (root.parent) root = root.parent;
        return root === cmd ? [] : root.options.filter((o) => !o.hidden && o.long !== '--version');
      },
    });
  registerCommands(program);
  return program;
}
