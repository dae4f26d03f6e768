import type { StatusReport } from '../status/index.js';
import { printable } from '../util/terminal-text.js';
import {
  familyHead,
  familyText,
  labelPairs,
  sampleLine,
  seconds,
  valueText,
  type FamilyHead,
  type Sample,
} from './exposition.js';

/** A label value from the journal (a terminal name an imported file gave): escaped and bounded, as on a terminal. */
export const label = (text: string) => printable(text, 64);

/** What the per-terminal families show of one scrape. */
export interface TerminalFigures {
  /** The status report: which terminals' receiver does not listen, and each push terminal's kept uploads. */
  report: StatusReport;
  /** The enabled terminals of the config, with what the ledger last recorded of each (any kind). */
  terminals: readonly { name: string; record: { online: boolean; lastSuccessAt: number | null } | undefined }[];
  journaled: ReadonlyMap<string, number>;
  delivered: ReadonlyMap<string, number>;
}

/** A terminal name's label pairs, as the lines write them. */
interface NamePairs {
  /** `{terminal="..."}` of the name as a label from the journal shows it (label()). */
  shown: string;
  /** `{terminal="..."}` of the name itself (a name of the config). */
  exact: string;
  /** Whether label() changed the name: then two names may show alike. */
  changed: boolean;
  /** Each family's line up to its value (`name{terminal="..."} `), by family, made at the first scrape that writes it. */
  heads: Map<string, string>;
}

/** Names whose pairs are kept at most; past it the cache starts again (names come from imported files too). */
const MAX_NAMES = 10_000;

const HEADS = {
  journaled: {
    name: 'punchgate_punches_journaled_total',
    help: 'Punches written to the journal (duplicates not counted), per terminal.',
    type: 'counter',
  },
  delivered: {
    name: 'punchgate_punches_delivered_total',
    help: 'Punches the HRMS accepted (or already had), per terminal.',
    type: 'counter',
  },
  up: {
    name: 'punchgate_terminal_up',
    help: 'Whether the terminal answered at its last contact and let punchgate read (1) or not (0: no answer, or its login refused), per enabled terminal.',
    type: 'gauge',
  },
  lastSuccess: {
    name: 'punchgate_terminal_last_success_timestamp_seconds',
    help: 'When the terminal last answered (Unix time); absent while it never has.',
    type: 'gauge',
  },
  keptUploads: {
    name: 'punchgate_push_kept_uploads_total',
    help: 'Push uploads answered OK that were not turned into punches or known records, kept raw in the journal, per terminal and table.',
    type: 'counter',
  },
  keptHeld: {
    name: 'punchgate_push_kept_held',
    help: 'Kept push uploads still in the journal (not yet turned into punches or dropped), per terminal and table.',
    type: 'gauge',
  },
  keptDropped: {
    name: 'punchgate_push_kept_dropped_total',
    help: 'Kept push uploads dropped, older than adms.keptUploads.maxAgeDays or to stay within its maxBytes (oldest first), per terminal and table.',
    type: 'counter',
  },
} satisfies Record<string, FamilyHead>;

/**
 * The families with a series per terminal (punches journalled and delivered, up and last success,
 * and the push uploads kept, per terminal and table), written as lines of text (exposition.ts says
 * why). With 200 terminals they are about 800 of a scrape's 900 lines. Each terminal's label text
 * is made once and kept, so a scrape makes little more than its lines: what a scrape leaves for
 * the garbage collector is what sets off the collections that make a slow scrape (issue 35).
 */
export class TerminalSeries {
  private readonly pairs = new Map<string, NamePairs>();

  /** Pushes each family's lines onto `lines`, a blank line between two families. */
  write(lines: string[], s: TerminalFigures): void {
    // A push terminal cannot reach a receiver that does not listen, whatever the ledger last recorded;
    // a terminal (or BioTime server) that refuses the login is reached but nothing can be read from
    // it: not up, as its row says LOGIN REFUSED and not online (a BioTime ledger said online).
    const cut = new Set(s.report.terminals.filter((t) => t.listenerDown || t.loginRefused).map((t) => t.name));
    this.counts(lines, HEADS.journaled, s.journaled);
    lines.push('');
    this.counts(lines, HEADS.delivered, s.delivered);
    lines.push('', familyHead(HEADS.up));
    for (const t of s.terminals)
      lines.push(this.line(HEADS.up, t.name, 'exact', t.record?.online && !cut.has(t.name) ? 1 : 0));
    lines.push('', familyHead(HEADS.lastSuccess));
    for (const t of s.terminals) {
      const at = seconds(t.record?.lastSuccessAt);
      if (at !== undefined) lines.push(this.line(HEADS.lastSuccess, t.name, 'exact', at));
    }
    const kept = s.report.terminals.flatMap((t) => (t.push?.kept ?? []).map((k) => ({ terminal: t.name, ...k })));
    const keptBy = (figure: (k: (typeof kept)[number]) => number) =>
      summed(kept.map((k) => [['terminal', label(k.terminal), 'table', label(k.table)], figure(k)]));
    lines.push(
      '',
      familyText(
        HEADS.keptUploads,
        keptBy((k) => k.uploads),
      ),
      '',
      familyText(
        HEADS.keptHeld,
        keptBy((k) => k.held),
      ),
      '',
      familyText(
        HEADS.keptDropped,
        keptBy((k) => k.dropped),
      ),
    );
  }

  /** A family of a count per terminal name from the journal. */
  private counts(lines: string[], head: FamilyHead, counts: ReadonlyMap<string, number>): void {
    lines.push(familyHead(head));
    let alike = false;
    for (const name of counts.keys()) alike ||= this.of(name).changed;
    if (alike) {
      // Two names may show alike once escaped and cut: their counts add up into one series.
      const samples = summed([...counts].map(([terminal, n]) => [['terminal', label(terminal)], n]));
      for (const [labels, n] of samples) lines.push(sampleLine(head.name, labelPairs(labels), n));
      return;
    }
    for (const [name, n] of counts) lines.push(this.line(head, name, 'shown', n));
  }

  /**
   * One sample's line for a terminal name, from its kept start: `shown` for a name from the
   * journal, `exact` for one from the config (each family writes its names one of the two ways,
   * so the family's name is the key).
   */
  private line(head: FamilyHead, name: string, as: 'shown' | 'exact', value: number): string {
    const pairs = this.of(name);
    let start = pairs.heads.get(head.name);
    if (start === undefined) {
      start = `${head.name}${pairs[as]} `;
      pairs.heads.set(head.name, start);
    }
    return start + valueText(value);
  }

  private of(name: string): NamePairs {
    let pairs = this.pairs.get(name);
    if (!pairs) {
      if (this.pairs.size >= MAX_NAMES) this.pairs.clear();
      const shown = label(name);
      pairs = {
        shown: labelPairs(['terminal', shown]),
        exact: labelPairs(['terminal', name]),
        changed: shown !== name,
        heads: new Map(),
      };
      this.pairs.set(name, pairs);
    }
    return pairs;
  }
}

/**
 * Samples whose labels came out the same added up into one: two names the journal holds may read
 * alike once escaped and cut to 64 characters (label()), and one series must not appear twice.
 */
function summed(samples: readonly Sample[]): Sample[] {
  const byKey = new Map<string, [readonly string[], number]>();
  for (const [labels, value] of samples) {
    const key = labels.join('\u0000');
    const had = byKey.get(key);
    if (had) had[1] += value;
    else byKey.set(key, [labels, value]);
  }
  return [...byKey.values()];
}
