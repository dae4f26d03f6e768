import { namedCause } from '../sources/poll-outcome.js';
import { escapeControls, safeJson } from '../util/terminal-text.js';
import type { CheckReport } from './types.js';

const LABEL = { pass: 'PASS', warn: 'WARN', fail: 'FAIL' } as const;

/**
 * "terminal gate: no answer ...", or "terminal gate refuses the password ..." where the detail
 * leads with the terminal's name (it said "terminal gate: gate refuses the password").
 */
function nameAndDetail(c: { name: string; detail: string }): string {
  const terminal = /^terminal (.+)$/.exec(c.name)?.[1];
  return terminal === undefined ? `${c.name}: ${c.detail}` : `terminal ${namedCause(terminal, c.detail)}`;
}

/**
 * One line per check: `FAIL hrms: the HRMS refused the token — put a valid token in ...`.
 * A config that cannot be used adds its `path: message` lines, indented, below its line.
 */
export function formatReport(report: CheckReport): string {
  const lines: string[] = [`punchgate ${report.version} check (Node ${process.version})`];
  for (const c of report.checks) {
    // Details and fixes quote terminals and the HRMS (a serial, an address, a device's words): each
    // line is written whole with its control characters escaped, whatever part of it they came in.
    lines.push(escapeControls(`${LABEL[c.status]} ${nameAndDetail(c)}${c.fix ? ` — ${c.fix}` : ''}`));
    for (const p of c.problems ?? []) lines.push(`  ${escapeControls(p)}`);
  }
  const count = (s: 'pass' | 'warn' | 'fail') => report.checks.filter((c) => c.status === s).length;
  const warnings = count('warn');
  const failed = count('fail');
  lines.push(
    `${report.ok ? 'all checks passed' : `${failed} check${failed === 1 ? '' : 's'} failed`}` +
      `${warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''} (${count('pass')} passed)`,
  );
  return lines.join('\n') + '\n';
}

/** The report for machines: `{ version, ok, exitCode, quick, checks: [{ name, status, detail, fix?, problems? }] }`. */
export function formatReportJson(report: CheckReport): string {
  return safeJson(report, 2) + '\n';
}
