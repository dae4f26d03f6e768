import { createHash } from 'node:crypto';
import { localTime } from '../../util/local-time.js';
import type { PushTerminal } from './directory.js';
import type { SourceStateStore } from '../../journal/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { hasPushNote, writePushNote } from './notes.js';

/**
 * A terminal that sends the same ATTLOG upload again and again, every punch of it journalled
 * already: it does not take punchgate's answer as its acknowledgement (firmware that wants
 * another form of OK, or an answer lost on the way), and its later punches wait on it behind
 * that upload. Deduplication kept the journal right, so nothing said it: the terminal showed
 * online and "ok" while its punches stopped coming. Found by an adversarial trial (one terminal
 * retrying one upload hundreds of times a second). Said once it has come this many times in a row.
 */
export const SAME_UPLOAD_REPEATS = 10;

interface Run {
  digest: string;
  count: number;
  since: number;
  /** Whether a note says it now (undefined: not known since start; the journal is asked once). */
  noted: boolean | undefined;
}

/** What it needs of the receiver's context (handler-kit.ts's, which holds it). */
export interface RepeatsContext {
  notes?: SourceStateStore;
  clock: Clock;
  logger: Logger;
}

/** Per terminal, its last ATTLOG upload and how many times in a row it came. Bounded by the configured terminals. */
export class RepeatedUploads {
  private readonly runs = new Map<string, Run>();

  /**
   * After an upload was journalled: `added` of its `punches` were new. Says (and, once the
   * terminal sends another upload, unsays) a terminal stuck on one upload. Never throws.
   */
  seen(ctx: RepeatsContext, t: PushTerminal, body: Buffer, punches: number, added: number, answer: string): void {
    const name = t.cfg.name;
    const now = ctx.clock.now();
    const digest = createHash('sha256').update(body).digest('base64');
    const prev = this.runs.get(name);
    const repeat = prev !== undefined && prev.digest === digest && added === 0 && punches > 0;
    const run: Run = repeat ? { ...prev, count: prev.count + 1 } : { digest, count: 1, since: now, noted: prev?.noted };
    this.runs.set(name, run);
    if (!ctx.notes) return;
    if (run.count === SAME_UPLOAD_REPEATS) {
      const cause = `sends the same ATTLOG upload (${punches} punches) again and again, ${SAME_UPLOAD_REPEATS} times in a row since ${localTime(run.since)}, each already journalled and answered "${answer}": it does not take that answer as its acknowledgement (or never gets it), so its later punches wait on it`;
      const fix =
        t.cfg.pushDialect !== undefined
          ? `remove pushDialect: '${t.cfg.pushDialect}' from ${name} (the terminal's handshake says which answer it wants) and reload; if that does not help, check that nothing between the terminal and this box (a proxy) changes or drops the answer, and update its firmware`
          : `if its firmware is PUSH 2.0.1 or older, set pushDialect: '2.0.1' for ${name} (it is then answered a plain OK) and reload; else check that nothing between the terminal and this box (a proxy) changes or drops the answer, note its model and firmware version, and update its firmware`;
      ctx.logger.warn({ terminal: name, repeats: run.count, punches }, `push terminal ${name} ${cause}: ${fix}`);
      writePushNote(ctx.notes, name, 'repeats', { cause, fix }, now, ctx.logger);
      run.noted = true;
      return;
    }
    if (repeat) return;
    try {
      run.noted ??= hasPushNote(ctx.notes, name, 'repeats');
    } catch {
      return; // The journal cannot be read now: asked again at the next upload.
    }
    if (!run.noted) return;
    // Another upload: the terminal took the last answer after all.
    writePushNote(ctx.notes, name, 'repeats', null, now, ctx.logger);
    run.noted = false;
  }
}
