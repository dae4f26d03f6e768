/** Where a roster comes from: a CSV file (`--roster`) or the HRMS employee fetch (`--from-hrms`). */
import { readFileSync } from 'node:fs';
import { readProblem } from '../util/read-problem.js';
import type { TerminalUsersConfig } from '../config/schema.js';
import type { FetchAnswer } from '../hrms/users.js';
import { EXIT, ExitError } from '../util/exit-codes.js';
import { readRosterCsv, RosterFileError } from './roster-csv.js';
import { rosterFromEmployees } from './roster-hrms.js';
import type { Roster } from './types.js';

export function loadRosterFile(file: string): Roster {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ExitError(`cannot read the roster ${file} ${readProblem(e)}`, EXIT.NOINPUT);
  }
  try {
    return checkUsable(readRosterCsv(text, file), file);
  } catch (e) {
    if (e instanceof RosterFileError) throw new ExitError(e.message, EXIT.DATAERR);
    throw e;
  }
}

export interface EmployeeFetcher {
  fetch(filter: { status?: string; department?: string; designation?: string }): Promise<FetchAnswer>;
}

const FETCH_EXIT: Record<string, number> = { auth: EXIT.NOPERM, transient: EXIT.TEMPFAIL, contract: EXIT.CONFIG };

export async function fetchRoster(hrms: EmployeeFetcher, cfg: TerminalUsersConfig): Promise<Roster> {
  const answer = await hrms.fetch(cfg.filter);
  if (!answer.ok) {
    throw new ExitError(
      `the HRMS employee fetch failed: ${answer.message}${answer.fix ? ` — ${answer.fix}` : ''}`,
      FETCH_EXIT[answer.kind] ?? EXIT.FAILURE,
    );
  }
  return checkUsable(rosterFromEmployees(answer.records, cfg.fields, answer.unreadable), 'the HRMS');
}

/** A roster with no usable row is refused whole: an empty or wrong file must never empty the terminals. */
function checkUsable(roster: Roster, source: string): Roster {
  if (roster.entries.length === 0) {
    const bad = roster.problems.slice(0, 5).map((p) => `\n  ${p.where}: ${p.message}`);
    const more = roster.problems.length > 5 ? `\n  ... and ${roster.problems.length - 5} more` : '';
    throw new ExitError(`${source}: no usable roster row; nothing done${bad.join('')}${more}`, EXIT.DATAERR);
  }
  return roster;
}
