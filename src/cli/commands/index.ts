import type { Command } from 'commander';
import { registerBackup } from './backup.js';
import { registerCheck } from './check.js';
import { registerDemo } from './demo.js';
import { registerEmployees } from './employees.js';
import { registerFlush } from './flush.js';
import { registerImport } from './import.js';
import { registerImportConfig } from './import-config.js';
import { registerPoll } from './poll.js';
import { registerPunches } from './punches.js';
import { registerRun } from './run.js';
import { registerSimFrappe } from './sim-frappe.js';
import { registerSimDahua } from './sim-dahua.js';
import { registerSimBiotime } from './sim-biotime.js';
import { registerSimHikvision } from './sim-hikvision.js';
import { registerSimHrms } from './sim-hrms.js';
import { registerSimOdoo } from './sim-odoo.js';
import { registerSimPushTerminal } from './sim-push-terminal.js';
import { registerSimSerial } from './sim-serial.js';
import { registerSimTerminal } from './sim-terminal.js';
import { registerStatus } from './status.js';
import { registerTerminals } from './terminals.js';

/** Each command lives in its own file and registers itself here, in the order of `--help`. */
export function registerCommands(program: Command): void {
  registerRun(program);
  registerStatus(program);
  registerCheck(program);
  registerTerminals(program);
  registerPoll(program);
  registerPunches(program);
  registerImport(program);
  registerImportConfig(program);
  registerFlush(program);
  registerBackup(program);
  registerEmployees(program);
  registerDemo(program);
  registerSimTerminal(program);
  registerSimHrms(program);
  registerSimOdoo(program);
  registerSimSerial(program);
  registerSimHikvision(program);
  registerSimFrappe(program);
  registerSimDahua(program);
  registerSimBiotime(program);
  registerSimPushTerminal(program);
}
