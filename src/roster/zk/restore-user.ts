/**
 * `terminals restore-user <terminal> <code>`: puts a removed user back from its newest backup in
 * the journal, with its fingerprint templates (one upload and SAVE_USERTEMPS, as pyzk restores).
 * If the code is on the terminal again (the roster brought it back without fingerprints), that
 * user keeps its record and uid and gets the templates. Refused when the terminal's fingerprint
 * algorithm is not the one the templates were taken with.
 */
import { UserBackupStore } from '../../journal/user-backups.js';
import { encodeUserRecord, type UserTemplatesEntry } from '../../sources/zk/protocol/index.js';
import { EXIT, ExitError } from '../../util/exit-codes.js';
import { storedCode, UidPool } from '../plan.js';
import type { UserCommandDeps } from '../command-deps.js';
import { zkTerminal } from '../terminals.js';
import { messageOf } from '../../util/errors.js';
import { faultText, isConnectionLoss, ZkUserTerminal } from './zk-terminal.js';
import { configKeyIn } from '../../config/terminals.js';
import { localTime } from '../../util/local-time.js';
import { quoted } from '../../util/terminal-text.js';

export async function runRestoreUser(terminalName: string, code: string, deps: UserCommandDeps): Promise<number> {
  const cfg = zkTerminal(deps.config, terminalName, 'restore-user');
  const store = new UserBackupStore(deps.journal.db, deps.now);
  const retention = deps.config.terminalUsers.backupRetentionDays;
  store.prune(retention);
  const backup = store.latest(terminalName, code.trim());
  if (!backup) {
    throw new ExitError(
      `no backup of code ${code} from ${terminalName} (backups are kept ${retention} days; \`punchgate terminals backups\` lists them)`,
      EXIT.FAILURE,
    );
  }
  const t = new ZkUserTerminal(cfg, deps.clientFactory, configKeyIn(deps.config, cfg.name));
  try {
    const rows = await t.readUsers();
    const fp = await t.fingerprintVersion();
    if (backup.templates.length > 0 && (fp === null || fp !== backup.fpVersion)) {
      throw new ExitError(
        `${terminalName} uses fingerprint algorithm ${fp ?? '(unknown)'}, the backup of ${backup.code} was taken with ${backup.fpVersion ?? '(unknown)'}: its templates cannot be restored here; nothing changed`,
        EXIT.FAILURE,
      );
    }
    const sc = storedCode(backup.code, t.profile());
    if ('error' in sc) throw new ExitError(`${terminalName}: ${sc.error}; nothing changed`, EXIT.FAILURE);
    const present = rows.find((r) => r.user.userId === sc.code);
    let record: Buffer;
    let uid: number;
    let restoredName = '';
    let nameNote: string | null = null;
    if (present) {
      record = present.raw;
      uid = present.user.uid;
    } else {
      const used = new Set(rows.map((r) => r.user.uid));
      uid = backup.uid !== null && !used.has(backup.uid) ? backup.uid : (new UidPool(used, 0xffff).take() ?? -1);
      if (uid < 0) throw new ExitError(`${terminalName}: no free uid; nothing changed`, EXIT.FAILURE);
      // The name in the terminal's character set; one it cannot take is left out, the user still restored.
      const name = t.nameForRecord(backup.name);
      if ('refused' in name) {
        nameNote = name.refused;
        deps.err.write(`punchgate: ${terminalName}: ${backup.code}: ${name.refused}\n`);
      } else restoredName = name.name;
      record = encodeUserRecord(
        {
          uid,
          privilege: backup.privilege,
          password: '',
          name: restoredName,
          card: backup.card,
          group: 1,
          userId: sc.code,
        },
        t.recordSize,
        'bytes' in name ? name.bytes : undefined,
      );
    }
    const entry: UserTemplatesEntry = {
      record,
      templates: backup.templates.map((f) => ({ finger: f.finger, template: f.template })),
    };
    let failure: unknown = null;
    const warnings = await t.withDeviceDisabled(async () => {
      try {
        if (entry.templates.length > 0) await t.client.saveUserTemplates([entry]);
        else await t.client.writeUser(record);
      } catch (e) {
        failure = e;
      }
    });
    for (const w of warnings) deps.err.write(`punchgate: ${terminalName}: ${deps.scrub(w)}\n`);
    // What the terminal holds now decides, not what it answered.
    const after = (await t.readUsers()).find((r) => r.user.uid === uid && r.user.userId === sc.code);
    const fingers = after ? ((await t.readTemplates()).get(uid) ?? []) : [];
    const complete =
      after &&
      entry.templates.every((f) => fingers.some((g) => g.finger === f.finger && g.template.equals(f.template)));
    if (!complete) {
      const why = failure ? messageOf(failure) : 'the terminal does not hold it afterwards';
      throw new ExitError(
        `${terminalName}: ${backup.code} not restored: ${deps.scrub(why)}`,
        failure && isConnectionLoss(failure) ? EXIT.TEMPFAIL : EXIT.FAILURE,
      );
    }
    store.markRestored(backup.id);
    deps.out.write(
      `${terminalName}: ${present ? 'fingerprints restored to' : 'restored'} ${backup.code} ${quoted(present ? present.user.name : restoredName)} (uid ${uid}) with ${entry.templates.length} fingerprint(s) from the backup of ${localTime(backup.takenAt)}${nameNote ? ' (without its name: see above)' : ''}\n`,
    );
    if (warnings.length > 0) return EXIT.TEMPFAIL;
    return nameNote ? EXIT.FAILURE : EXIT.OK;
  } catch (e) {
    if (e instanceof ExitError) throw e;
    throw new ExitError(
      `${terminalName}: ${deps.scrub(faultText(t, e))}`,
      isConnectionLoss(e) ? EXIT.TEMPFAIL : EXIT.FAILURE,
    );
  } finally {
    await t.close();
  }
}
