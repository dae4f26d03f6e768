import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, loadConfigFile, type LoadedConfig, type TerminalCheck } from '../config/load.js';
import { decideFallback, type FallbackDecision } from '../config/fallback.js';
import { secretFilesReadableByAll } from '../config/secret-files.js';
import { findLastGood, saveLastGood, type LastGood } from '../config/last-good.js';
import type { ConfigStatus } from '../status/types.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { messageOf } from '../util/errors.js';
import { localTime } from '../util/local-time.js';
import { firstFew } from '../util/first-few.js';

/** What the config file looked like when last read: a change is seen without reading it. */
interface FileMark {
  mtimeMs: number;
  size: number;
  ino: number;
}

/**
 * Which configuration `punchgate run` runs on, and whether its file loads now. The daemon keeps
 * a copy of each config that loaded (config/last-good.ts) and watches the file (a stat at each
 * status write): a file broken by an edit is an alert at once, not at the next restart. A file
 * that loads again is not applied by itself: a reload is the admin's act.
 */
export class ConfigWatch {
  readonly file: string;
  /**
   * The file as it was named (--config), as check, the start and a reload (SIGHUP) name it: every
   * message says it so, and one broken line reads the same whether a reload or this watch found it.
   */
  private readonly named: string;
  private runningOn: ConfigStatus['runningOn'] = 'file';
  private loadedAt: number;
  private lastGood: string | null = null;
  private failure: { problems: string[]; since: number } | null = null;
  private secretsMissing: string[] = [];
  /** Running on the copy: what the broken file still says that the copy may not override (fallback.ts). */
  private fallback: FallbackDecision | null = null;
  private mark: FileMark | undefined;
  /** Settings of the loaded file that wait for a restart (a reload could not apply them). */
  private restartPending: string[] = [];
  /** The config that loaded, not yet kept beside the journal (this process does not own it yet). */
  private unsaved: { text: string; at: number } | undefined;
  private journalOwned = false;

  constructor(
    file: string,
    private readonly journalPath: string,
    private readonly deps: { clock: Clock; logger: Logger; checkTerminal: TerminalCheck },
  ) {
    this.file = resolve(file);
    this.named = file;
    this.loadedAt = deps.clock.now();
  }

  /**
   * The config for `punchgate run` at its start: the file, or, when the file does not load and a
   * copy of the last one that did is kept, that copy (said loudly). Throws the file's
   * ConfigError when there is no copy (exit 78, as always).
   */
  static startWith(
    file: string,
    deps: { clock: Clock; logger: Logger; checkTerminal: TerminalCheck; env?: NodeJS.ProcessEnv },
  ): { config: LoadedConfig['config']; watch: ConfigWatch } {
    try {
      const loaded = loadConfigFile(file, deps.checkTerminal);
      const watch = new ConfigWatch(file, loaded.config.journal.path, deps);
      watch.loaded(loaded);
      return { config: loaded.config, watch };
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      let copy: LastGood | undefined;
      try {
        copy = findLastGood(file, deps.checkTerminal, deps.env);
      } catch (copyError) {
        deps.logger.error({ err: messageOf(copyError) }, 'the kept copy of the last good config does not load either');
      }
      if (!copy) throw e;
      // A fallback, not a time machine: what the broken file still says wins over the older copy.
      const { config, decision } = decideFallback(copy.config, file);
      const watch = new ConfigWatch(file, config.journal.path, deps);
      watch.runOnCopy(copy, e.problems, decision);
      return { config, watch };
    }
  }

  /**
   * The file loaded (at start or on reload): forget any failure, and keep a copy of it beside the
   * journal once this process owns the journal (ownsJournal). A `punchgate run` refused because
   * another one holds the journal, or because the journal cannot be used, must not replace the
   * running daemon's copy with its own file: that copy is what a restart with a broken file runs on.
   */
  loaded(loaded: LoadedConfig): void {
    const now = this.deps.clock.now();
    this.runningOn = 'file';
    this.loadedAt = now;
    this.failure = null;
    this.secretsMissing = [];
    this.fallback = null;
    this.restartPending = [];
    this.mark = markOf(this.file);
    this.unsaved = { text: loaded.text, at: now };
    if (this.journalOwned) this.keepCopy();
    // Once per load (start, reload): a secret any user of the box may read is said, never refused.
    for (const f of secretFilesReadableByAll(this.named, loaded.config)) this.deps.logger.warn(`${f.detail}: ${f.fix}`);
  }

  /**
   * The reload that just loaded the file could not apply these settings (their names): the status
   * says so, with the fix, until a restart (or a reload of a file that no longer changes them).
   */
  waitForRestart(keys: readonly string[]): void {
    this.restartPending = [...keys];
  }

  /** This process holds the journal's lock: the config it loaded is kept beside it from now on. */
  ownsJournal(): void {
    this.journalOwned = true;
    this.keepCopy();
  }

  private keepCopy(): void {
    const unsaved = this.unsaved;
    if (!unsaved) return;
    this.unsaved = undefined;
    try {
      this.lastGood = saveLastGood(this.journalPath, this.file, unsaved.text, unsaved.at);
    } catch (e) {
      this.lastGood = null;
      this.deps.logger.warn(
        { err: messageOf(e) },
        `could not keep a copy of the config beside the journal: a restart with a broken ${this.named} would stop punchgate`,
      );
    }
  }

  /**
   * Loading the file threw (a reload, or a change seen by `poll`): a config error's own lines, any
   * other failure named by the file, as every message names it.
   */
  failedToLoad(e: unknown): void {
    this.failed(e instanceof ConfigError ? e.problems : [`${this.named}: ${messageOf(e)}`]);
  }

  /** The file did not load: the running config stays. */
  private failed(problems: string[]): void {
    const before = this.failure;
    this.failure = { problems, since: before?.since ?? this.changedAt() };
    this.mark = markOf(this.file);
    if (before === null || before.problems.join('\n') !== problems.join('\n')) {
      this.deps.logger.error(
        { problems },
        `${this.named} does not load (${problems.length > 0 ? firstFew(problems, 1) : 'unknown problem'}): ` +
          `punchgate keeps running on ${this.runningOn === 'file' ? 'the config it loaded' : 'the last good config'}; correct the file, check it with punchgate check --config-only, then systemctl reload punchgate`,
      );
    }
  }

  /**
   * Looks at the file (a stat; it is read only when it changed): a file broken since it was
   * loaded becomes an alert, one corrected again stops being one.
   */
  poll(): void {
    const now = markOf(this.file);
    if (sameMark(now, this.mark)) return;
    try {
      loadConfigFile(this.named, this.deps.checkTerminal);
      this.mark = now;
      if (this.failure) {
        this.failure = null;
        this.deps.logger.info(
          this.runningOn === 'file'
            ? `${this.named} loads again`
            : `${this.named} loads again; punchgate still runs on the last good config: systemctl reload punchgate applies the file`,
        );
      }
    } catch (e) {
      this.failedToLoad(e);
    }
  }

  status(): ConfigStatus {
    return {
      file: this.file,
      runningOn: this.runningOn,
      loadedAt: new Date(this.loadedAt).toISOString(),
      lastGood: this.lastGood,
      failure: this.failure
        ? { problems: this.failure.problems, since: new Date(this.failure.since).toISOString() }
        : null,
      secretsMissing: this.secretsMissing,
      ...(this.restartPending.length > 0 ? { restartPending: this.restartPending } : {}),
      ...(this.fallback ? { fallback: this.fallback } : {}),
    };
  }

  /** Why delivery must not run now (running on the copy while the file names another HRMS), or null. */
  deliveryHeld(): string | null {
    return this.fallback?.deliveryHeld ?? null;
  }

  private runOnCopy(copy: LastGood, problems: string[], decision: FallbackDecision): void {
    this.runningOn = 'last-good';
    this.fallback = decision;
    this.loadedAt = copy.loadedAt;
    this.lastGood = copy.path;
    this.secretsMissing = copy.secretsMissing;
    this.failure = { problems, since: this.changedAt() };
    this.mark = markOf(this.file);
    this.deps.logger.error(
      { problems, lastGood: copy.path },
      `${this.named} does not load (${problems.length > 0 ? firstFew(problems, 1) : 'unknown problem'}): ` +
        `punchgate runs on the last good config, loaded ${localTime(copy.loadedAt)} and kept at ${copy.path}` +
        `${copy.secretsMissing.length ? `, without ${copy.secretsMissing.join(' and ')}` : ''}; correct the file, check it with punchgate check --config-only, then systemctl reload punchgate`,
    );
    for (const line of fallbackWords(decision))
      this.deps.logger.error(
        { lastGood: copy.path },
        `${line}: correct ${this.named}, then systemctl reload punchgate`,
      );
  }

  /** When the file was last changed (its breaking, most likely), never later than now. */
  private changedAt(): number {
    const now = this.deps.clock.now();
    try {
      return Math.min(now, statSync(this.file).mtimeMs);
    } catch {
      return now;
    }
  }
}

function markOf(file: string): FileMark | undefined {
  try {
    const st = statSync(file);
    return { mtimeMs: st.mtimeMs, size: st.size, ino: st.ino };
  } catch {
    return undefined;
  }
}

function sameMark(a: FileMark | undefined, b: FileMark | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.mtimeMs === b.mtimeMs && a.size === b.size && a.ino === b.ino;
}

/** What running on the copy holds back, one sentence each (the log, the status text). */
export function fallbackWords(d: FallbackDecision): string[] {
  const out: string[] = [];
  if (d.deliveryHeld) out.push(`delivery is HELD (punches are journalled and wait): ${d.deliveryHeld}`);
  for (const t of d.notStarted) out.push(`terminal ${t.name} is NOT collected from: ${t.why}`);
  if (d.onlyInFile.length > 0)
    out.push(`not collected from (only the broken file names them): ${d.onlyInFile.join(', ')}`);
  if (d.terminalsUnread)
    out.push('the terminal list of the broken file cannot be read: every terminal of the copy runs');
  return out;
}
