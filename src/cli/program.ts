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
    .option('--pretty', 'human-readable log lines instead of JSON (the same as --log-format text)')
    .option(
      '--log-format <format>',
      'json, text or journal (lines with their priority for systemd); default: journal under systemd (JOURNAL_STREAM), else json',
    )
    .option('--log-level <level>', 'trace, debug, info, warn, error')
    .showHelpAfterError()
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
