import { SecretRuns } from './secret-runs.js';
import { mapStrings } from './map-strings.js';

/**
 * The secret values this process knows that can turn up inside text from outside: the HRMS
 * token and the proxy credentials. `scrub` replaces them in one given text field (an HRMS
 * message, a body snippet, an error detail) where that field is created; nothing scrubs whole
 * log lines or whole outputs (the logger redacts by key, see logger.ts).
 *
 * A secret is looked for in every form an HRMS, a proxy or a framework may echo it in:
 * as it is, URL-encoded, JSON with escaped slashes, and inside base64 or base64url text (an echoed `Authorization:
 * Basic ...` or a JWT-style blob holding "Bearer <token>" or "user:<password>"), whatever the
 * bytes before it in that blob.
 *
 * Short and purely numeric values are never scrubbed as substrings: a 4-digit terminal comm
 * key would match timestamps, counts and paths. Such values are kept out of messages instead
 * (they are never put into one) and out of logs by the logger's redact paths.
 * One instance per process, passed through the context (no global).
 */
export class Secrets {
  private readonly forms = new Set<string>();
  private readonly values = new Set<string>();
  private readonly whole = new Set<string>();
  private runs: SecretRuns | undefined;
  private readonly recent = new ScrubCache();
  /** Moves on when a secret is added: what was scrubbed before must be scrubbed again. */
  private generation = 0;

  /**
   * Registers a secret (and its encoded forms); too short or all-digit values are ignored, see
   * above. `runs: false` for a secret a person chose (a terminal's password, `not-the-password`):
   * only its whole value and encodings are redacted, as its runs of 8 characters are ordinary
   * words (`password`) that would be redacted from every message. Runs are for random tokens.
   */
  add(value: string | undefined | null, opts: { runs?: boolean } = {}): void {
    const forms = secretForms(value);
    const v = value?.trim() ?? '';
    if (forms.length === 0 || this.values.has(v) || (this.whole.has(v) && opts.runs === false)) return;
    for (const f of forms) this.forms.add(f);
    this.recent.clear();
    this.generation++;
    if (opts.runs === false) this.whole.add(v);
    else {
      this.values.add(v);
      this.runs = undefined;
    }
  }

  /**
   * `text` with every known secret form replaced by [REDACTED], and every run of a secret's
   * characters quoted in disguise (cut short, reversed, spelled out, encoded: secret-runs.ts).
   */
  scrub(text: string): string {
    const known = this.recent.get(text);
    if (known !== undefined) return known;
    return this.recent.put(text, this.fresh(text));
  }

  /**
   * A scrubber for a report rebuilt every interval (the status log, its JSON twin, the status
   * page): it returns a copy of the report with every string in it scrubbed, and a string the last
   * report had too is not read again. The files are then rendered from that copy: every text in
   * them from outside is one of its strings, the rest is our own words, numbers and times. Reading
   * the rendered files for every disguise instead took 20 to 40 ms a file with 240 terminals, on
   * the event loop, every interval (issue 35); the strings of such a report, 2 to 3 ms the first
   * time and about nothing after. Times the daemon wrote (`2026-11-29T01:49:04.825Z`) are not read:
   * digits and punctuation it made itself, new each time.
   */
  reports(): <T>(report: T) => T {
    let last = new Map<string, string>();
    let generation = this.generation;
    return <T>(report: T): T => {
      if (generation !== this.generation) {
        last = new Map();
        generation = this.generation;
      }
      const next = new Map<string, string>();
      const out = mapStrings(report, (text) => {
        if (OUR_TIME.test(text)) return text;
        const done = next.get(text) ?? last.get(text) ?? this.fresh(text);
        next.set(text, done);
        return done;
      });
      last = next;
      return out;
    };
  }

  private fresh(text: string): string {
    this.runs ??= new SecretRuns(this.values);
    return this.runs.redact(scrubForms(text, this.forms), REDACTED);
  }
}

/**
 * The last texts scrubbed and what they became. Looking for a secret in all its disguises reads
 * a text many ways (secret-runs.ts), and the same text is scrubbed again and again: an HRMS's
 * message for each of the 200 punches of a batch, its "saved" answer to every batch. Short texts
 * only (a long one is a status file, new each time); a new secret empties it.
 */
class ScrubCache {
  private readonly map = new Map<string, string>();
  get(text: string): string | undefined {
    return text.length <= CACHED_TEXT ? this.map.get(text) : undefined;
  }
  put(text: string, scrubbed: string): string {
    if (text.length > CACHED_TEXT) return scrubbed;
    // Oldest first: a Map iterates in insertion order.
    if (this.map.size >= CACHED_TEXTS) this.map.delete(this.map.keys().next().value!);
    this.map.set(text, scrubbed);
    return scrubbed;
  }
  clear(): void {
    this.map.clear();
  }
}
/** A time as the daemon writes it (Date#toISOString), the only strings a report's scrubber passes unread. */
const OUR_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CACHED_TEXTS = 256;
const CACHED_TEXT = 4096;

/** Shortest value scrubbed as a substring, and shortest encoded fragment looked for. */
const MIN_SECRET = 6;
const MIN_FRAGMENT = 8;
export const REDACTED = '[REDACTED]';

/** A value is worth scrubbing as text only when it cannot be mistaken for ordinary text. */
export function scrubbable(value: string): boolean {
  return value.length >= MIN_SECRET && !/^\d+$/.test(value);
}

/** The forms of one secret to look for in text: plain, URL-encoded, and base64/base64url at each alignment. */
export function secretForms(value: string | undefined | null): string[] {
  const s = value?.trim();
  if (!s || !scrubbable(s)) return [];
  const forms = new Set<string>([s]);
  // As JSON writers that escape slashes (PHP's json_encode) put it in a raw body.
  if (s.includes('/')) forms.add(s.replace(/\//g, '\\/'));
  const encoded = encodeURIComponent(s);
  if (encoded !== s) {
    forms.add(encoded);
    forms.add(encoded.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()));
    forms.add(encoded.replace(/%20/g, '+'));
  }
  for (const b64 of base64Fragments(Buffer.from(s, 'utf8'))) {
    if (b64.length < MIN_FRAGMENT) continue;
    forms.add(b64);
    forms.add(b64.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...forms];
}

/**
 * The base64 characters that encode `bytes` whatever comes before and after them: for each of
 * the three alignments (0, 1 or 2 bytes before it in the blob), the characters that depend only
 * on the secret's own bytes.
 */
function base64Fragments(bytes: Buffer): string[] {
  const out: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const padded = Buffer.concat([Buffer.alloc(shift), bytes]);
    const full = padded.toString('base64').replace(/=+$/, '');
    // Characters touched by the shift bytes: 0 for no shift, 2 for one byte, 3 for two.
    const skip = [0, 2, 3][shift]!;
    // The last group is known only where it holds no bits of what follows the secret.
    const total = padded.length;
    const keep = Math.floor(total / 3) * 4 + [0, 1, 2][total % 3]!;
    out.push(full.slice(skip, keep));
  }
  return out;
}

/** Replaces every form (longest first, so a form inside another is not half-replaced). */
export function scrubForms(text: string, forms: Iterable<string>): string {
  return scrubSorted(text, longestFirst(forms));
}

function longestFirst(forms: Iterable<string>): string[] {
  return [...forms].sort((a, b) => b.length - a.length);
}

function scrubSorted(text: string, sorted: readonly string[]): string {
  let out = text;
  for (const f of sorted) if (out.includes(f)) out = out.split(f).join(REDACTED);
  return out;
}

/** A scrubber for a fixed set of secrets (a client that knows its token and proxy credentials): forms and runs, as Secrets.scrub. */
export function scrubberFor(values: ReadonlyArray<string | undefined>): (text: string) => string {
  const sorted = longestFirst(values.flatMap((v) => secretForms(v)));
  if (sorted.length === 0) return (t) => t;
  const runs = new SecretRuns(values.filter((v): v is string => v !== undefined && scrubbable(v.trim())));
  const recent = new ScrubCache();
  return (t) => recent.get(t) ?? recent.put(t, runs.redact(scrubSorted(t, sorted), REDACTED));
}
