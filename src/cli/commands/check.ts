import type { Command } from 'commander';
import { formatReport, formatReportJson, runChecks } from '../../check/index.js';
import { DEFAULT_CONFIG_PATH } from '../../config/schema.js';
import { action, globalOptions } from '../common.js';

export function registerCheck(program: Command): void {
  program
    .command('check')
    .description(
      'check the config, the journal, each enabled terminal and the HRMS token (with an empty batch: records nothing); ' +
        'one PASS/WARN/FAIL line each with the fix to try; exit 0 when nothing failed, 78 bad config, 1 otherwise',
    )
    .option('--json', 'machine-readable output')
    .option(
      '--quick',
      'health check: config, journal (read-only; its pages are not checked) and whether punchgate run runs (it holds the journal lock); no network; exit 0 or 1',
    )
    .option('--config-only', 'only the config file (systemctl reload runs it first): exit 0, or 78 with its problems')
    .action(
      action(async (opts: { json?: boolean; quick?: boolean; configOnly?: boolean }, cmd: Command) => {
        const report = await runChecks({
          configPath: globalOptions(cmd).config ?? DEFAULT_CONFIG_PATH,
          quick: opts.quick ?? false,
          configOnly: opts.configOnly ?? false,
        });
        process.stdout.write(opts.json ? formatReportJson(report) : formatReport(report));
        return report.exitCode;
      }),
    );
}
