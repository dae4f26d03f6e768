/**
 * `terminals copy-templates --from A --to B... [--code C]...`: enrol once, use on every terminal.
 * The users of A that have fingerprint templates (or the named ones) are put on each target with
 * their templates: a user missing there is added (smallest free uid, as a normal user), a user
 * already there keeps its record, uid and privilege and gets the fingers it lacks or holds
 * differently. Templates travel only between terminals of the same fingerprint algorithm
 * (`~ZKFPVersion`); a target with another one is refused, whole. Dry-run and idempotent.
 */
import { encodeUserRecord } from '../../sources/zk/protocol/index.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { copyJson, formatCopyText, type CopyChange, type CopyOptions, type CopyReport } from './copy-report.js';
import { storedCode, UidPool } from '../plan.js';
import type { UserCommandDeps } from '../command-deps.js';
import { zkTerminal } from '../terminals.js';
import { messageOf } from '../../util/errors.js';
import { faultText, isConnectionLoss, ZkUserTerminal, type ZkUserRow } from './zk-terminal.js';
import { configKeyIn } from '../../config/terminals.js';
import { safeJson } from '../../util/terminal-text.js';
import { INTERRUPTED, isStopped } from '../interrupt.js';

interface SourceUser {
  row: ZkUserRow;
  fingers: { finger: number; template: Buffer }[];
}

export async function runCopyTemplates(opts: CopyOptions, deps: UserCommandDeps): Promise<number> {
  const fromCfg = zkTerminal(deps.config, opts.from, '--from');
  const targets = [...new Set(opts.to)].map((n) => zkTerminal(deps.config, n, '--to'));
  if (targets.some((t) => t.name === fromCfg.name)) {
    throw new ExitError(`--to ${fromCfg.name} is the --from terminal`, EXIT.FAILURE);
  }
  const { users, fpVersion, unknownCodes } = await readSource(fromCfg.name, deps, opts.code);
  for (const c of unknownCodes) deps.err.write(`punchgate: --code ${c}: no user with fingerprints on ${opts.from}\n`);

  const reports = await Promise.all(
    targets.map(async (cfg) =>
      copyTo(
        new ZkUserTerminal(cfg, deps.clientFactory, configKeyIn(deps.config, cfg.name)),
        users,
        fpVersion,
        Boolean(opts.dryRun),
        deps.stop,
      ),
    ),
  );
  const code = exitCode(reports, unknownCodes.length > 0);
  if (opts.json) deps.out.write(safeJson(copyJson(opts, reports, code, deps.scrub), 2) + '\n');
  else deps.out.write(formatCopyText(opts, users.length, reports, deps.scrub));
  return code;
}

async function readSource(name: string, deps: UserCommandDeps, codes: string[] | undefined) {
  const t = new ZkUserTerminal(
    zkTerminal(deps.config, name, '--from'),
    deps.clientFactory,
    configKeyIn(deps.config, name),
  );
  try {
    const rows = await t.readUsers();
    const templates = await t.readTemplates();
    const fpVersion = await t.fingerprintVersion();
    const wanted = codes?.map((c) => c.trim());
    const users: SourceUser[] = [];
    for (const row of rows) {
      const fingers = (templates.get(row.user.uid) ?? []).map((f) => ({ finger: f.finger, template: f.template }));
      if (fingers.length === 0) continue;
      if (wanted && !wanted.some((c) => sameCode(c, row.user.userId))) continue;
      users.push({ row, fingers });
    }
    const unknownCodes = (wanted ?? []).filter((c) => !users.some((u) => sameCode(c, u.row.user.userId)));
    return { users, fpVersion, unknownCodes };
  } catch (e) {
    throw new ExitError(
      `--from ${name}: ${deps.scrub(faultText(t, e))}`,
      isConnectionLoss(e) ? EXIT.TEMPFAIL : EXIT.FAILURE,
    );
  } finally {
    await t.close();
  }
}

const sameCode = (a: string, b: string) => a === b || (/^\d+$/.test(a) && /^\d+$/.test(b) && Number(a) === Number(b));

async function copyTo(
  t: ZkUserTerminal,
  users: readonly SourceUser[],
  fpVersion: string | null,
  dryRun: boolean,
  stop?: AbortSignal,
): Promise<CopyReport> {
  const report: CopyReport = {
    terminal: t.name,
    address: t.address,
    reached: false,
    changes: [],
    kept: 0,
    skipped: [],
    warnings: [],
  };
  try {
    const rows = await t.readUsers();
    report.reached = true;
    const fp = await t.fingerprintVersion();
    if (fp === null || fpVersion === null || fp !== fpVersion) {
      report.refused = `${t.name} uses fingerprint algorithm ${fp ?? '(unknown)'}, the source ${fpVersion ?? '(unknown)'}: templates cannot be copied between them; nothing copied`;
      return report;
    }
    const held = users.length > 0 ? await t.readTemplates() : new Map();
    plan(t, rows, held, users, report);
    if (dryRun) {
      for (const c of report.changes) c.result = { status: 'planned' };
      return report;
    }
    // Nothing to copy: still enable the terminal, which an earlier run that broke off may have left disabled.
    if (report.changes.length === 0) {
      report.warnings = await t.enableAgain();
      return report;
    }
    let broken: string | null = null;
    report.warnings = await t.withDeviceDisabled(async () => {
      for (const c of report.changes) {
        // Interrupted: stop writing, so that the terminal is enabled again at once.
        const skip = broken ?? (isStopped(stop) ? INTERRUPTED : null);
        if (skip) {
          c.result = { status: 'not-attempted', error: skip };
          continue;
        }
        try {
          await t.client.saveUserTemplates([{ record: c.record, templates: c.templates }]);
          c.result = { status: 'applied' };
        } catch (e) {
          if (!isConnectionLoss(e)) c.result = { status: 'failed', error: `refused by the terminal: ${messageOf(e)}` };
          else {
            broken = `not attempted: the connection broke at an earlier user (${messageOf(e)})`;
            c.result = { status: 'unknown', error: `no answer (${messageOf(e)})` };
          }
        }
      }
    });
    await verify(t, report);
  } catch (e) {
    if (report.reached) report.error = messageOf(e);
    else ({ cause: report.error, fix: report.fix } = t.fault(e));
    for (const c of report.changes)
      if (c.result.status === 'planned') c.result = { status: 'not-attempted', error: report.error };
  } finally {
    await t.close();
  }
  return report;
}

function plan(
  t: ZkUserTerminal,
  rows: readonly ZkUserRow[],
  held: Map<number, { finger: number; template: Buffer }[]>,
  users: readonly SourceUser[],
  report: CopyReport,
): void {
  const profile = t.profile();
  const pool = new UidPool(new Set(rows.map((r) => r.user.uid)), profile.maxUid ?? 0xffff);
  for (const u of users) {
    const sc = storedCode(u.row.user.userId, profile);
    if ('error' in sc) {
      report.skipped.push({ code: u.row.user.userId, reason: sc.error });
      continue;
    }
    const present = rows.find((r) => r.user.userId === sc.code);
    if (!present) {
      const uid = pool.take();
      if (uid === null) {
        report.skipped.push({ code: sc.code, reason: 'no free uid on this terminal' });
        continue;
      }
      const s = u.row.user;
      // Read in the source's character set, written in the target's; a name that was no text at
      // the source (U+FFFD) or that the target cannot hold is left out, the user and fingers still copied.
      const name = t.nameForRecord(s.name);
      const text = 'refused' in name ? '' : name.name;
      const record = encodeUserRecord(
        { uid, privilege: 0, password: '', name: text, card: s.card, group: 1, userId: sc.code },
        t.recordSize,
        'bytes' in name ? name.bytes : undefined,
      );
      const c = change('add', sc.code, uid, text, record, u.fingers);
      if ('refused' in name)
        c.note = `${name.refused}${u.row.nameUnreadable ? ` (the source holds ${u.row.nameUnreadable})` : ''}`;
      report.changes.push(c);
      continue;
    }
    const theirs = held.get(present.user.uid) ?? [];
    const missing = u.fingers.filter(
      (f) => !theirs.some((g) => g.finger === f.finger && g.template.equals(f.template)),
    );
    if (missing.length === 0) report.kept++;
    else report.changes.push(change('fingers', sc.code, present.user.uid, present.user.name, present.raw, missing));
  }
}

function change(
  action: CopyChange['action'],
  code: string,
  uid: number,
  name: string,
  record: Buffer,
  templates: { finger: number; template: Buffer }[],
): CopyChange {
  return {
    action,
    code,
    uid,
    name,
    fingers: templates.map((f) => f.finger),
    result: { status: 'planned' },
    record,
    templates,
  };
}

/** A change is applied only if the target now serves the user and every copied finger byte for byte. */
async function verify(t: ZkUserTerminal, report: CopyReport): Promise<void> {
  const todo = report.changes.filter((c) => c.result.status === 'applied' || c.result.status === 'unknown');
  if (todo.length === 0) return;
  try {
    const rows = await t.readUsers();
    const held = await t.readTemplates();
    for (const c of todo) {
      const user = rows.find((r) => r.user.uid === c.uid && r.user.userId === c.code);
      const fingers = held.get(c.uid) ?? [];
      const ok =
        user && c.templates.every((f) => fingers.some((g) => g.finger === f.finger && g.template.equals(f.template)));
      if (ok) c.result = { status: 'applied' };
      else if (c.result.status === 'unknown')
        c.result = { status: 'failed', error: `${c.result.error}; the terminal does not hold it` };
      else c.result = { status: 'failed', error: 'the terminal acknowledged it but does not serve the templates' };
    }
  } catch (e) {
    report.warnings.push(`could not read the users and templates back to check: ${messageOf(e)}`);
  }
}

function exitCode(reports: readonly CopyReport[], badCodes: boolean): number {
  const all = reports.flatMap((r) => r.changes.map((c) => c.result.status));
  if (reports.some((r) => r.error) || all.some((s) => s === 'not-attempted' || s === 'unknown')) return EXIT.TEMPFAIL;
  const nameless = reports.some((r) => r.changes.some((c) => c.note));
  if (reports.some((r) => r.refused || r.skipped.length > 0) || all.includes('failed') || nameless) return EXIT.FAILURE;
  return badCodes ? EXIT.DATAERR : EXIT.OK;
}
