import type { Command } from 'commander';
import type { Config } from '../../config/schema.js';
import { requireSeedHrms } from '../../config/sinks.js';
import {
  createEmployee,
  disableEmployee,
  fetchEmployees,
  updateEmployee,
  type EmployeeDeps,
  type FieldOptions,
} from '../../employees/commands.js';
import { importEmployees, type ImportCommandOptions } from '../../employees/import-command.js';
import { readEmployeeExtras } from '../../employees/payload.js';
import { TokenSource } from '../../hrms/token.js';
import { HrmsUsers } from '../../hrms/users.js';
import { action, loadContext } from '../common.js';

/**
 * `punchgate employees create|update|disable|fetch|import`: the HRMS user operations.
 * Exit codes: 0 done; 1 the HRMS refused (validation, not found); 65 invalid input, nothing of it
 * sent; 66 the CSV cannot be read; 75 the HRMS unreachable; 77 the token refused; 78 bad config.
 */
export function registerEmployees(program: Command): void {
  const employees = program
    .command('employees')
    .description('create, update, disable, fetch and import employees in the HRMS');

  const collect = (v: string, prev: string[] = []) => [...prev, v];
  const fieldOptions = (cmd: Command): Command =>
    cmd
      .option('--gender <gender>', 'gender')
      .option('--dob <YYYY-MM-DD>', 'date of birth')
      .option('--role <role>', 'designation (payload field "Role")')
      .option('--zone <zone>', 'zone ("null" sends null)')
      .option('--block <n>', 'user status as an integer (the usage examples send 0)')
      .option('--pan-attach <url>', 'URL of the PAN document (payload field "panAttach")')
      .option(
        '--field <key=value>',
        'another payload field, e.g. a custom field mapped on the HRMS (repeatable)',
        collect,
      )
      .option('--json', 'print the HRMS answer as JSON');

  const withClient = async (
    cmd: Command,
    run: (deps: EmployeeDeps, config: Config) => Promise<number>,
  ): Promise<number> => {
    const ctx = loadContext(cmd, { logToStderr: true });
    const extras = readEmployeeExtras(ctx.config.employees);
    const client = new HrmsUsers({
      hrms: requireSeedHrms(ctx.config, 'punchgate employees'),
      token: new TokenSource({
        tokenFile: requireSeedHrms(ctx.config, 'punchgate employees').tokenFile,
        secrets: ctx.secrets,
      }),
      secrets: ctx.secrets,
      authPatterns: ctx.config.delivery.patterns.authFailure,
      logger: ctx.logger,
    });
    try {
      return await run(
        {
          client,
          out: process.stdout,
          err: process.stderr,
          identifyBy: extras.identifyBy,
          types: extras.types,
          required: ctx.config.employees.required,
        },
        ctx.config,
      );
    } finally {
      await client.close();
    }
  };

  const create = employees
    .command('create')
    .description('create an employee (the HRMS decides create or update by its identifier)')
    .requiredOption('--username <username>', 'username (identifies the employee)')
    .requiredOption('--name <name>', 'employee name')
    .requiredOption('--email <email>', 'official e-mail address');
  fieldOptions(create).action(
    action(async (opts: FieldOptions, cmd: Command) => withClient(cmd, (deps) => createEmployee(opts, deps))),
  );

  const update = employees
    .command('update <username>')
    .description('change only the fields given; every other field stays as it is')
    .option('--name <name>', 'employee name')
    .option('--email <email>', 'official e-mail address');
  fieldOptions(update).action(
    action(async (username: string, opts: FieldOptions, cmd: Command) =>
      withClient(cmd, (deps) => updateEmployee(username, opts, deps)),
    ),
  );

  employees
    .command('disable <username>')
    .description('disable the account ({"delete": "true", "username": ...}); the HRMS keeps its history')
    .option('--json', 'print the HRMS answer as JSON')
    .action(
      action(async (username: string, opts: { json?: boolean }, cmd: Command) =>
        withClient(cmd, (deps) => disableEmployee(username, opts, deps)),
      ),
    );

  employees
    .command('fetch')
    .description('list employee master data (path and parameters: hrms.employeeFetch)')
    .option('--status <status>', 'employee status filter')
    .option('--department <department>', 'department filter')
    .option('--designation <designation>', 'designation filter')
    .option('--json', 'print the records as JSON')
    .action(
      action(
        async (opts: { status?: string; department?: string; designation?: string; json?: boolean }, cmd: Command) =>
          withClient(cmd, (deps) =>
            fetchEmployees(
              { status: opts.status, department: opts.department, designation: opts.designation },
              { json: opts.json },
              deps,
            ),
          ),
      ),
    );

  employees
    .command('import <file>')
    .description('create or update employees from a CSV file (columns mapped by employees.columns)')
    .option('--dry-run', 'validate and compare with the HRMS, send nothing')
    .option('--report <file>', 'write a JSON report with one entry per row')
    .option('--quiet', 'list only the rows not applied (failed, invalid, skipped)')
    .action(
      action(async (file: string, opts: ImportCommandOptions, cmd: Command) =>
        withClient(cmd, (deps, config) =>
          importEmployees(file, opts, { ...deps, err: process.stderr, columns: config.employees.columns }),
        ),
      ),
    );
}
