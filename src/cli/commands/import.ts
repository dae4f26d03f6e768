import { statSync } from 'node:fs';
import { readProblem } from '../../util/read-problem.js';
import type { Command } from 'commander';
import {
  importFile,
  IMPORT_SOURCE,
  ImportStoppedError,
  serialOfExportName,
} from '../../sources/import/import-files.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { escapeControls } from '../../util/terminal-text.js';
import { action, withJournal } from '../common.js';
import { terminalNamesHint } from '../terminal-names.js';
import type { TerminalConfig } from '../../config/terminals.js';

/**
 * Why punches cannot be filed under terminal `name` (from --terminal or a CSV's terminal column),
 * or undefined when they can: it must be a terminal of the config (or the import's own name), so
 * that an imported punch has the identity its terminal gives it, never a second one under a typo.
 */
function terminalProblem(name: string, terminals: readonly TerminalConfig[]): string | undefined {
  if (name === IMPORT_SOURCE) return undefined;
  const t = terminals.find((x) => x.name === name);
  if (!t) return `no terminal named "${escapeControls(name)}" in the config${terminalNamesHint(name, terminals)}`;
  // A BioTime server has many devices behind it and a file does not say which one a line came
  // from: filed under the server, a line would land on whichever device it learnt last.
  if (t.kind === 'biotime')
    return `${escapeControls(name)} is a BioTime server, with several terminals behind it: add the terminal itself to the config (its serial as a push terminal, or kind zk) and import under its name`;
  return undefined;
}

export function registerImport(program: Command): void {
  program
    .command('import')
    .description(
      'load punches from USB exports (*_attlog.dat, GLG_001.TXT, AGL_001.TXT) or CSV (biometriccode,logDate[,terminal])',
    )
    .argument('<files...>', 'files to import')
    .option(
      '--terminal <name>',
      "count the punches as this terminal's, so they deduplicate with what is polled from it",
    )
    .action(
      action((files: string[], opts: { terminal?: string }, cmd: Command) =>
        withJournal(cmd, async (ctx, journal) => {
          const unusable = (name: string) => terminalProblem(name, ctx.config.terminals);
          const refused = opts.terminal === undefined ? undefined : unusable(opts.terminal);
          if (refused !== undefined) throw new ExitError(`--terminal: ${refused}`, EXIT.CONFIG);
          // A write meets a damaged page only when it touches one: 200,000 punches went into a journal
          // with zeroed pages, exit 0. Asked first (about 0.6 s for a year of punches), a damaged
          // journal is refused with exit 74 and the fix before a line is written into it.
          journal.assertIntact();
          // A push terminal's punches carry its configured serial (the device its uploads are stored
          // under); any other terminal's are filed by the journal under the device it is known to be,
          // now or once its first poll tells it (terminal-devices.ts): one identity either way.
          const deviceOf = (name: string) => {
            const t = ctx.config.terminals.find((x) => x.name === name);
            return t?.kind === 'adms' ? t.serial : '';
          };
          // A terminal's USB export is named by its serial: without --terminal, the terminal of that
          // serial (a push terminal's, or the device the journal knows a terminal to be) takes its
          // punches, so they are the same punches as the ones it sent or was polled for.
          const known = journal.knownDevices();
          const terminalOfSerial = (serial: string): string | undefined => {
            const s = serial.toUpperCase();
            const push = ctx.config.terminals.find((t) => t.kind === 'adms' && t.serial.toUpperCase() === s);
            if (push) return push.name;
            for (const [terminal, device] of known)
              if (device.toUpperCase() === s && unusable(terminal) === undefined) return terminal;
            return undefined;
          };
          // A push terminal given a new serial in the config (a replaced device) that has not called
          // yet: the journal still knows it as the old device, whose export this is.
          const pushedBefore = (serial: string): { terminal: string; device: string } | undefined => {
            const s = serial.toUpperCase();
            for (const [terminal, device] of known) {
              const t = ctx.config.terminals.find((x) => x.name === terminal);
              if (t?.kind === 'adms' && device.toUpperCase() === s && t.serial.toUpperCase() !== s)
                return { terminal, device };
            }
            return undefined;
          };
          // A terminal taken out of the config whose stick comes later: its punches are still its
          // device's (the ones not journalled yet are delivered as any removed terminal's are).
          const inConfig = (name: string) => ctx.config.terminals.some((t) => t.name === name);
          const removedDevice = (serial: string): { terminal: string; device: string } | undefined => {
            // A terminal renamed keeps its device: the configured name has it (terminalOfSerial).
            if (terminalOfSerial(serial) !== undefined) return undefined;
            const s = serial.toUpperCase();
            for (const [terminal, device] of known)
              if (!inConfig(terminal) && device.toUpperCase() === s) return { terminal, device };
            return undefined;
          };
          const fileable = (name: string) => (inConfig(name) ? unusable(name) === undefined : name !== IMPORT_SOURCE);
          let anyBad = false;
          // A file that cannot be read is said and skipped: the files after it are still imported
          // (an unreadable one among several stopped the rest, with no word about them).
          const unreadable: string[] = [];
          const cannotRead = (shown: string, why: string) => {
            process.stderr.write(`punchgate: ${shown}: cannot read ${why}\n`);
            unreadable.push(shown);
          };
          for (const file of files) {
            const shown = escapeControls(file);
            const named = serialOfExportName(file);
            // The export of a device a terminal was before (a replaced terminal's stick): its punches
            // are that device's, never the new device's nor "import"'s (either sent them twice).
            const past =
              named === undefined
                ? undefined
                : (journal.pastDeviceOf(named, IMPORT_SOURCE) ?? pushedBefore(named) ?? removedDevice(named));
            // A stick imported apart before (its serial then known by no terminal: its punches under
            // "import" as its device's), now named a terminal whose device is not known yet: the
            // device is the same, so are its punches (under the terminal's name they went in twice).
            const apartBefore =
              named !== undefined &&
              opts.terminal !== undefined &&
              opts.terminal !== IMPORT_SOURCE &&
              fileable(opts.terminal) &&
              deviceOf(opts.terminal) === '' &&
              !known.has(opts.terminal)
                ? journal.pastDeviceOf(named)
                : undefined;
            const pastDevice =
              past && (opts.terminal === undefined || opts.terminal === past.terminal) && fileable(past.terminal)
                ? past
                : apartBefore?.terminal === IMPORT_SOURCE
                  ? { terminal: opts.terminal!, device: apartBefore.device }
                  : undefined;
            const serial = opts.terminal === undefined && pastDevice === undefined ? named : undefined;
            const terminal = pastDevice?.terminal ?? (serial === undefined ? opts.terminal : terminalOfSerial(serial));
            if (pastDevice !== undefined && apartBefore?.terminal === IMPORT_SOURCE) {
              process.stdout.write(
                `${shown}: the serial ${escapeControls(named!)} in its name is a device whose punches were imported before under "${IMPORT_SOURCE}": its punches are counted as that device's, under terminal ${escapeControls(pastDevice.terminal)}\n`,
              );
            } else if (pastDevice !== undefined && !inConfig(pastDevice.terminal)) {
              process.stdout.write(
                `${shown}: the serial ${escapeControls(named!)} in its name is the device of terminal ${escapeControls(pastDevice.terminal)}, which is no longer in the config: its punches are counted as that device's\n`,
              );
            } else if (pastDevice !== undefined) {
              const now = deviceOf(pastDevice.terminal) || known.get(pastDevice.terminal);
              process.stdout.write(
                `${shown}: the serial ${escapeControls(named!)} in its name is the device terminal ${escapeControls(pastDevice.terminal)} was before${now ? ` ${escapeControls(now)}` : ''}: its punches are counted as that device's\n`,
              );
            } else if (serial !== undefined && terminal !== undefined)
              process.stdout.write(
                `${shown}: the serial ${escapeControls(serial)} in its name is terminal ${escapeControls(terminal)}'s: its punches are counted as that terminal's\n`,
              );
            else if (serial !== undefined)
              // Said after the punches are in: the old words' fix, "import it with --terminal NAME
              // instead", put the same punches in twice (now their device makes them duplicates).
              process.stderr.write(
                `${shown}: no terminal of the config is known by the serial ${escapeControls(serial)} in its name yet: its punches are counted under "${IMPORT_SOURCE}" as the device ${escapeControls(serial)}'s: ` +
                  `the terminal found to be that device (at its first poll) reads them again as duplicates, never sent twice, and so does an import of this file with --terminal NAME. ` +
                  `--terminal NAME names the terminal a stick is from at once; --terminal ${IMPORT_SOURCE} says a file is meant to be apart\n`,
              );
            // The device the file's name says, for punches filed under "import" (import-files.ts).
            const apartDevice = serial !== undefined && terminal === undefined ? serial : undefined;
            // A device or a pipe (/dev/zero, a FIFO) never ends: only files are read.
            let kind: string | undefined;
            try {
              const st = statSync(file);
              kind = st.isFile() ? undefined : st.isDirectory() ? 'a folder' : 'not a file (a device or a pipe)';
            } catch {
              // not there, or not readable: importFile says which
            }
            if (kind) {
              cannotRead(shown, `(${kind}): name the exported file`);
              continue;
            }
            let r;
            try {
              r = await importFile(
                file,
                journal,
                { terminal, deviceOf, refuse: unusable, pastDevice: pastDevice?.device, apartDevice },
                (b) => process.stderr.write(`${shown}:${b.line}: ${escapeControls(b.reason)}\n`),
              );
            } catch (e) {
              if (e instanceof ImportStoppedError) {
                // Said before the journal's own error (exit 74 or 75, from reportError): what stays, and how to go on.
                const rest = files.slice(files.indexOf(file) + 1).map(escapeControls);
                process.stderr.write(
                  `${shown}: stopped after line ${e.through}: ${e.report.added} new, ${e.report.duplicates} duplicates journalled before it (kept)` +
                    `${rest.length ? `; not imported: ${rest.join(', ')}` : ''}; once the journal is mended, run the same import again: ` +
                    'what is already journalled counts as a duplicate, never twice\n',
                );
                throw e.cause;
              }
              const code = (e as NodeJS.ErrnoException).code;
              if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') {
                cannotRead(shown, readProblem(e));
                continue;
              }
              throw e;
            }
            if (r.added > 0)
              try {
                // SQLite's sync said done; the file system must still take writes after it (file-system-probe.ts).
                journal.confirmWritable();
              } catch (e) {
                process.stderr.write(
                  `${shown}: read, but the journal's disk failed as its punches were written: keep the file, and once the disk is mended run the same import again (what is already journalled counts as a duplicate, never twice)\n`,
                );
                throw e;
              }
            anyBad ||= r.bad > 0;
            const q = r.quarantined ? `, ${r.quarantined} quarantined (implausible time)` : '';
            process.stdout.write(`${shown}: ${r.added} new, ${r.duplicates} duplicates, ${r.bad} bad${q}\n`);
          }
          if (unreadable.length > 0 && files.length > 1)
            process.stderr.write(
              `punchgate: ${unreadable.length} of ${files.length} files could not be read (${unreadable.join(', ')}); the others were imported as said above\n`,
            );
          return unreadable.length > 0 ? EXIT.NOINPUT : anyBad ? EXIT.DATAERR : EXIT.OK;
        }),
      ),
    );
}
