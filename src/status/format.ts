import { cannotStart } from '../delivery/cannot-start.js';
import { credentialTrouble } from '../delivery/credential-trouble.js';
import { escapeControls, printable } from '../util/terminal-text.js';
import { localTimeOf, localTime } from '../util/local-time.js';
import type { StatusReport, TerminalStatus } from './report.js';
import { deliveryTroubleWords } from './alert-words.js';
import { sinkLines } from './sinks.js';
import { notRoutedWords } from './not-routed-words.js';
import { backupLine } from './backup.js';
import { credentialLabel } from './credential-words.js';
import { summaryLine, terminalShown } from './summary.js';
import { removedTerminalWords } from './removed-terminals.js';
import { importedApartWords } from './imported-apart.js';
import { lastActivityLabel, notYetLabel } from './activity-words.js';
import { namedCause } from '../sources/poll-outcome.js';

const when = (s: string | null) => localTimeOf(s);

/** A push terminal: it calls us, so "last contact" and "last upload" instead of a poll. */
function pushLine(t: TerminalStatus): string {
  const p = t.push!;
  if (p.lastContactAt === null) return `no contact yet (push, SN=${printable(t.serial, 64)})`;
  const counts = t.records === null ? '' : `  records ${t.records}${t.users === null ? '' : `  users ${t.users}`}`;
  return (
    `${terminalShown(t) === 'online' ? 'online ' : 'OFFLINE'}  last contact ${when(p.lastContactAt)}  last upload ${when(p.lastUploadAt)}` +
    `  received ${p.received}${counts}${t.firmware ? `  firmware ${printable(t.firmware, 64)}` : ''}`
  );
}

/** The status log / `punchgate status` text: what an admin reads first. */
export function formatStatus(r: StatusReport): string {
  const now = Date.parse(r.generatedAt);
  const p = r.punches;
  const lines: string[] = [];
  lines.push(`punchgate status — site ${r.site} — ${localTime(now)} — punchgate ${r.version}`);
  lines.push('');
  // Never "No alerts." above a row that says OFFLINE or FAILING (summary.ts).
  lines.push(summaryLine(r));
  // Alerts and errors quote terminals and the HRMS: shown escaped, never as raw control characters.
  // Bounded, but above the longest of our own: the daemon's last line for a damaged journal, with
  // its recovery steps (about 1,500 characters), was cut before the fix at 1,000.
  for (const a of r.alerts) lines.push(`  ! ${printable(a, 4000)}`);
  lines.push('');
  lines.push('Terminals');
  if (r.terminals.length === 0) lines.push('  (none configured)');
  for (const t of r.terminals) {
    if (t.push) {
      lines.push(`  ${t.name.padEnd(16)} ${pushLine(t)}`);
      continue;
    }
    const shown = terminalShown(t);
    const state = shown === 'not contacted yet' ? notYetLabel(t.kind) : shown === 'online' ? 'online ' : shown;
    const skew = t.skewSeconds === null ? '' : `  clock ${t.skewSeconds >= 0 ? '+' : ''}${Math.round(t.skewSeconds)} s`;
    const counts = `${t.records === null ? '' : `  records ${t.records}`}${t.users === null ? '' : `  users ${t.users}`}`;
    // Offline: the figures are those of its last answer, said so.
    const asOf = t.stale && (skew || counts) ? `  (as of ${when(t.lastSuccessAt)})` : '';
    // Offline: when it last answered, "never" for one never reached, as the page's column says;
    // "OFFLINE  last poll <time>" alone read as a terminal that once answered. Not beside LOGIN
    // REFUSED: that one answers (its refusal is the cause under the rows).
    const contact = shown === 'OFFLINE' ? `  last contact ${when(t.lastSuccessAt)}` : '';
    lines.push(
      `  ${t.name.padEnd(16)} ${state}${contact}  ${lastActivityLabel(t.kind)} ${when(t.lastPollAt)}${skew}${counts}${asOf}`,
    );
    // A BioTime server: the terminals behind it, each a device of its own.
    for (const d of t.devices ?? [])
      lines.push(
        `    ${printable(d.serial, 64)}  ${printable(d.alias || '-', 64)}${d.area ? ` (${printable(d.area, 64)})` : ''}  last punch ${d.lastPunch || '-'}  read ${d.read}`,
      );
  }
  for (const t of r.terminals) {
    if (t.problem)
      lines.push(`    ${printable(namedCause(t.name, t.problem.cause), 500)}: ${printable(t.problem.fix, 500)}`);
  }
  // Taken out of the config with punches still to deliver: said, not left out with the config's list.
  for (const t of r.removedTerminals ?? []) lines.push(`  ${printable(removedTerminalWords(t), 800)}`);
  if (r.importedApart) lines.push(`  ${importedApartWords(r.importedApart)}`);
  lines.push('');
  lines.push('Queue');
  // With punchgate run stopped, its claims hold no request (a kill -9 left them): said as they are.
  const stranded =
    r.daemon?.running === false && p.inflight > 0
      ? ' (punchgate run is stopped: back in the queue at its next start, unless a punchgate flush is sending them)'
      : '';
  lines.push(
    `  pending ${p.pending}   in flight ${p.inflight}${stranded}   delivered ${p.delivered}${notRoutedWords(p)}`,
  );
  lines.push(`  rejected ${p.rejected}   dead ${p.dead}   quarantined ${p.quarantined}`);
  if (r.oldestPending)
    lines.push(`  oldest waiting punch: ${r.oldestPending.logTime} (terminal clock) from ${r.oldestPending.terminal}`);
  lines.push('');
  lines.push('Delivery');
  const noToken = credentialTrouble(r.delivery) === 'none';
  const unbuilt = r.delivery.auth !== 'failed' && cannotStart(stateTimes(r.delivery));
  // The default sink's own words: an Odoo sink's API key is accepted, not a token (credential-words.ts).
  const what = r.delivery.credential?.what ?? 'token';
  const auth = noToken
    ? `NO ${what.toUpperCase()}`
    : r.delivery.auth === 'failed'
      ? 'AUTH FAILED'
      : unbuilt
        ? 'CANNOT START: nothing is sent (see the alert and the last error)'
        : r.delivery.failingSince
          ? `FAILING${failingWords(r.delivery.lastError)}`
          : r.delivery.auth === 'ok'
            ? `${what} accepted`
            : 'not tried yet';
  lines.push(`  ${credentialLabel(r.delivery.credential)}: ${auth}`);
  // The last attempt's result goes with the line of what that attempt was: a success or an error.
  const d = r.delivery;
  const result = d.lastResult ? ` (${printable(d.lastResult, 300)})` : '';
  const place = resultPlace(d);
  lines.push(`  last success: ${when(d.lastSuccessAt)}${place === 'success' ? result : ''}`);
  // A later batch that was neither (the HRMS refused every punch, or it was stopped): its own line.
  if (place === 'attempt' && d.lastResult) lines.push(`  last attempt: ${when(d.lastAttemptAt)}${result}`);
  if (d.lastError)
    lines.push(
      `  last error: ${when(d.lastErrorAt)}: ${printable(d.lastError, 500)}${place === 'error' ? result : ''}`,
    );
  if (unbuilt && r.delivery.failingSince) {
    // No loop runs for it: nothing tries again until the file or the config is put right.
    lines.push(
      `  cannot start since ${when(r.delivery.failingSince)}: put right what the last error says, then systemctl reload punchgate`,
    );
  } else if (r.delivery.failingSince) {
    // A next try only a running daemon makes. `punchgate status` reads it from the daemon's
    // status.json, written every status.intervalMs: while the HRMS is probed every few seconds, the
    // time written there has often passed by the time it is read ("next try 06:22:50" at 06:22:57),
    // so a time gone by is said as due now, and probing as the page says it.
    const probed = r.delivery.probing ? ' (the HRMS is asked every few seconds meanwhile)' : '';
    const nextAt = r.delivery.nextTryAt ? Date.parse(r.delivery.nextTryAt) : NaN;
    const next =
      Number.isNaN(nextAt) || r.daemon?.running === false
        ? ''
        : `next try ${nextAt >= now ? when(r.delivery.nextTryAt) : 'due now'}${probed}; `;
    lines.push(
      `  failing since ${when(r.delivery.failingSince)}: ${next}to try now: sudo -u punchgate punchgate flush`,
    );
  }
  lines.push(...sinkLines(r));
  if (r.backup) {
    lines.push('');
    lines.push('Backup');
    lines.push(`  ${printable(backupLine(r.backup), 1000)}`);
  }
  const c = r.config;
  if (c) {
    lines.push('');
    lines.push('Config');
    lines.push(
      c.runningOn === 'last-good' && r.daemon?.running === false
        ? `  punchgate run is stopped: a start would run on the LAST GOOD COPY ${c.lastGood ?? ''} (loaded ${when(c.loadedAt)} from ${c.file})`
        : c.runningOn === 'last-good'
          ? `  running on the LAST GOOD COPY ${c.lastGood ?? ''} (loaded ${when(c.loadedAt)} from ${c.file})`
          : `  running on ${c.file} as loaded ${when(c.loadedAt)}${c.lastGood ? ` (a copy is kept at ${c.lastGood})` : ''}`,
    );
    if (c.restartPending?.length)
      lines.push(
        `  WAITING FOR A RESTART: ${c.restartPending.join(', ')} (the reload could not apply them; see the alert)`,
      );
    if (c.fallback?.deliveryHeld) lines.push(`  delivery HELD: ${printable(c.fallback.deliveryHeld, 500)}`);
    for (const t of c.fallback?.notStarted ?? [])
      lines.push(`  not collected from: ${t.name}: ${printable(t.why, 300)}`);
    if (c.failure) {
      lines.push(`  ${c.file} does NOT load since ${when(c.failure.since)}:`);
      for (const p of c.failure.problems) lines.push(`    ${printable(p, 500)}`);
    }
  }
  // Every line is written as a terminal shows it: whatever part of the report a device's or a
  // server's text came in (a name, a sample, an address), no control character goes out raw
  // (the fields above are also cut to their bounds where they are quoted).
  return lines.map(escapeControls).join('\n') + '\n';
}

/**
 * Whether the last attempt's result (`lastResult`) is the last error's, not the last success's:
 * each goes on the line of what that attempt was.
 */
export function resultOfError(d: { lastErrorAt: string | null; lastSuccessAt: string | null }): boolean {
  return d.lastErrorAt !== null && (d.lastSuccessAt === null || d.lastErrorAt > d.lastSuccessAt);
}

/**
 * Which line the last attempt's result (`lastResult`) goes with: the last error's, the last
 * success's, or a line of its own for a later attempt that was neither, such as a batch the HRMS
 * refused wholly (no success: "last success ... (1 sent: 1 rejected)" was said over one).
 */
export function resultPlace(d: {
  lastErrorAt: string | null;
  lastSuccessAt: string | null;
  lastAttemptAt: string | null;
}): 'error' | 'success' | 'attempt' {
  if (resultOfError(d)) return 'error';
  // A success's attempt began before it was written: a later attempt is a later batch.
  if (d.lastSuccessAt !== null && (d.lastAttemptAt === null || d.lastAttemptAt <= d.lastSuccessAt)) return 'success';
  return 'attempt';
}

/** ": the HRMS refuses connections: ..." for a failing delivery whose error has plain words. */
export function failingWords(lastError: string | null): string {
  const words = lastError ? deliveryTroubleWords(lastError) : undefined;
  return words ? `: ${words}` : '';
}

/** The delivery row's times as the state keeps them (cannot-start.ts reads them so). */
export function stateTimes(d: { failingSince: string | null; lastError: string | null }): {
  failingSince: number | null;
  lastError: string | null;
} {
  return { failingSince: d.failingSince ? Date.parse(d.failingSince) : null, lastError: d.lastError };
}
