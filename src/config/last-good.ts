import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { isScalar, LineCounter, parseDocument, visit, type Scalar } from 'yaml';
import { ConfigError, parseConfig, type TerminalCheck } from './load.js';
import type { Config } from './schema.js';
import { writePrivateFile } from '../util/private-file.js';

/**
 * The last configuration that loaded, kept by `punchgate run` beside the journal. A config file
 * broken by an edit (a typo, a bad paste) must not leave the site dark at the next restart or
 * power cut: the daemon then runs on this copy (and says so everywhere), and the read-only
 * commands read it while the file is broken.
 *
 * The copy is the config file's own text (so `diff` against the file shows what changed), with
 * every secret written in it kept out: a ZK comm key, a password inside a URL (`hrms.proxy`).
 * Other secrets are files named by path (the token, passwords, proxy credentials), which the copy
 * names as the config does. Running on the copy, a secret kept out is read back from the broken
 * file where that still parses, else its terminal is not polled (or the URL lacks its password),
 * and the alert says which.
 */

/** The copy's file name, in the journal's folder. */
export const LAST_GOOD_FILE = 'config.last-good.yaml';
/** What stands in the copy where the config file has a secret. */
export const SECRET_KEPT_OUT = 'SECRET-KEPT-OUT-OF-THIS-COPY';
/** The copy's last line: where it comes from and when it loaded. */
const TRAILER = '# punchgate-last-good: ';

/**
 * A URL with credentials in it: `scheme://userinfo@host...` (the user name alone may be a token
 * too). The userinfo runs to the LAST `@` of the authority, as URL parsers read it: a password
 * with a raw `@` (`http://u:p@ss@proxy:3128` is user u, password p@ss) or a quote is kept out whole.
 */
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)([^\s/"#?]*)@/gi;
/**
 * A credential written as `NAME=value` or `name: value` (an environment line pasted in a comment,
 * a `?token=` in a URL, a field of its own): names ending in password, secret, token, credentials
 * or api key. Names of files that hold one (`tokenFile`, `passwordFile`) are not credentials.
 */
const NAMED_SECRET =
  /(^|[^A-Za-z0-9_])([A-Za-z0-9_.-]*(?:pass(?:word)?|passwd|pwd|secret|token|credentials?|api[_-]?key))([ \t]*[=:][ \t]*)("[^"\n]*"|'[^'\n]*'|[^\s#,&}\]"']+)/gi;

/**
 * A URL's query: kept out whole, whatever its names (`?key=`, `?sig=`, `?auth=`...): a config may
 * put a credential there (issue 30), and no list of names covers every vendor's.
 */
const URL_QUERY = /([a-z][a-z0-9+.-]*:\/\/[^\s"'?#]*)\?([^\s"'#]+)/gi;

/** `text` with every credential in it (URL userinfo and query, named secrets) replaced by SECRET_KEPT_OUT. */
export function scrubText(text: string): string {
  return text
    .replace(URL_USERINFO, `$1${SECRET_KEPT_OUT}@`)
    .replace(URL_QUERY, (all, head: string, query: string) =>
      query === SECRET_KEPT_OUT ? all : `${head}?${SECRET_KEPT_OUT}`,
    )
    .replace(NAMED_SECRET, (all, pre: string, name: string, sep: string, value: string) =>
      /(file|path)$/i.test(name) || value === SECRET_KEPT_OUT ? all : `${pre}${name}${sep}${SECRET_KEPT_OUT}`,
    );
}

export function lastGoodPathFor(journalPath: string): string {
  return join(dirname(journalPath), LAST_GOOD_FILE);
}

/** Where the copy may be for a config file whose journal.path cannot be read: systemd's StateDirectory, the default. */
function fallbackFolders(env: NodeJS.ProcessEnv): string[] {
  const state = env.STATE_DIRECTORY?.split(':')[0];
  return [...(state ? [state] : []), '/var/lib/punchgate'];
}

/**
 * The config text with every secret written in it replaced by SECRET_KEPT_OUT (comments and
 * layout kept): a comm key; in any value or comment, a URL's userinfo (`user:password@`, or a
 * user alone) and a named credential (`PROXY_PASSWORD=...`, `?token=...`, `password: ...`).
 */
export function withoutSecrets(text: string): string {
  const doc = parseDocument(text, { merge: true });
  const cuts: { from: number; to: number; text: string }[] = [];
  visit(doc, {
    Pair(_, pair) {
      const value = pair.value;
      if (!isScalar(value) || !value.range) return;
      const [from, to] = value.range;
      if (isScalar(pair.key) && pair.key.value === 'commKey' && isSecretKey(value)) {
        cuts.push({ from, to, text: SECRET_KEPT_OUT });
      }
    },
    Scalar(_, node) {
      if (typeof node.value !== 'string' || !node.range || scrubText(node.value) === node.value) return;
      const [from, to] = node.range;
      cuts.push({ from, to, text: JSON.stringify(scrubText(node.value)) });
    },
  });
  let out = text;
  for (const c of [...new Map(cuts.map((c) => [c.from, c])).values()].sort((a, b) => b.from - a.from)) {
    out = out.slice(0, c.from) + c.text + out.slice(c.to);
  }
  // What is left: comments (and any form the parse did not show as a value). A secret kept out of
  // a value may be written again in a comment in words no pattern knows (`# the password is ...`).
  return withoutInComments(scrubText(out), keptOut(text, scrubText(out)));
}

/** The secret values scrubText took out of `text` (long enough to be told from ordinary words). */
function keptOut(text: string, scrubbed: string): string[] {
  const out = new Set<string>();
  const take = (v: string | undefined) => {
    const bare = v?.replace(/^["']|["']$/g, '');
    if (bare && bare.length >= 6 && bare !== SECRET_KEPT_OUT) out.add(bare);
  };
  for (const m of text.matchAll(URL_USERINFO)) for (const part of m[2]!.split(':')) take(part);
  for (const m of text.matchAll(URL_QUERY)) for (const pair of m[2]!.split('&')) take(pair.split('=')[1]);
  for (const m of text.matchAll(NAMED_SECRET)) if (!/(file|path)$/i.test(m[2]!)) take(m[4]);
  return scrubbed === text ? [] : [...out];
}

/**
 * `text` with each of `secrets` replaced by SECRET_KEPT_OUT in its comments: whole-line ones and
 * those after a value (`proxy: "..."  # pw ...`). Values are left alone: a user name kept out of a
 * URL may also be a terminal's `username`, which the copy must keep.
 */
function withoutInComments(text: string, secrets: readonly string[]): string {
  if (secrets.length === 0) return text;
  return text
    .split('\n')
    .map((line) => {
      const at = commentStart(line);
      if (at < 0) return line;
      let comment = line.slice(at);
      for (const s of secrets) comment = comment.split(s).join(SECRET_KEPT_OUT);
      return line.slice(0, at) + comment;
    })
    .join('\n');
}

/**
 * Where a YAML comment may start in `line`: the first `#` at its start or after a blank, or -1. A
 * `#` so placed inside a quoted value is taken for one too: that errs towards keeping a secret out.
 */
function commentStart(line: string): number {
  const m = /(^|[ \t])#/.exec(line);
  return m ? m.index + m[1]!.length : -1;
}

/** A comm key other than 0 (0 means none: nothing to keep out). */
function isSecretKey(value: Scalar): boolean {
  return !(value.value === 0 || value.value === '0');
}

/** Writes the copy of a config that just loaded from `file` (atomically; readable by the service user only). */
export function saveLastGood(journalPath: string, file: string, text: string, loadedAt: number): string {
  const path = lastGoodPathFor(journalPath);
  const body = withoutSecrets(text);
  const trailer = `${TRAILER}${JSON.stringify({ source: resolve(file), loadedAt: new Date(loadedAt).toISOString() })}\n`;
  // At the first start the journal's folder may not exist yet (journal.path: data/journal.db):
  // punchgate run makes it for the journal anyway, and the copy is written before the journal opens.
  mkdirSync(dirname(path), { recursive: true });
  writePrivateFile(path, `${body}${body.endsWith('\n') ? '' : '\n'}${trailer}`);
  return path;
}

/** The copy, loaded. */
export interface LastGood {
  /** Where the copy is. */
  path: string;
  /** The config file it was copied from (absolute). */
  source: string;
  /** When it loaded from that file (epoch ms). */
  loadedAt: number;
  config: Config;
  /** Secrets kept out of the copy that could not be read back from the broken file, in words. */
  secretsMissing: string[];
}

/**
 * Loads the copy kept for the config file `file` (which does not load now), or undefined when
 * there is none for it. Secrets kept out of it are read back from `file` where it still parses.
 */
export function findLastGood(
  file: string,
  checkTerminal?: TerminalCheck,
  env: NodeJS.ProcessEnv = process.env,
): LastGood | undefined {
  const source = resolve(file);
  const broken = brokenRaw(file);
  const journal = (broken as { journal?: { path?: unknown } } | undefined)?.journal?.path;
  const candidates = [
    ...(typeof journal === 'string' && journal !== '' ? [lastGoodPathFor(resolve(dirname(source), journal))] : []),
    ...fallbackFolders(env).map((d) => join(d, LAST_GOOD_FILE)),
  ];
  for (const path of [...new Set(candidates)]) {
    let text: string;
    try {
      if (!statSync(path).isFile()) continue;
      text = readFileSync(path, 'utf8');
    } catch {
      continue;
    }
    const meta = trailerOf(text);
    if (!meta || meta.source !== source) continue;
    return loadCopy(path, text, meta, broken, checkTerminal);
  }
  return undefined;
}

/** What the broken config file still says (YAML parses as far as it can), or undefined. */
function brokenRaw(file: string): unknown {
  try {
    // Silent: a broken file read as far as it goes made the YAML library print its own warning
    // ("Keys with collection values will be stringified...", with the file's text) under the
    // config's problem lines.
    return parseDocument(readFileSync(file, 'utf8'), { merge: true, logLevel: 'error' }).toJS();
  } catch {
    return undefined;
  }
}

function trailerOf(text: string): { source: string; loadedAt: number } | undefined {
  const at = text.lastIndexOf(`\n${TRAILER}`);
  if (at < 0) return undefined;
  try {
    const m = JSON.parse(text.slice(at + 1 + TRAILER.length).split('\n')[0]!) as {
      source?: unknown;
      loadedAt?: unknown;
    };
    const loadedAt = typeof m.loadedAt === 'string' ? Date.parse(m.loadedAt) : NaN;
    if (typeof m.source !== 'string' || !Number.isFinite(loadedAt)) return undefined;
    return { source: m.source, loadedAt };
  } catch {
    return undefined;
  }
}

function loadCopy(
  path: string,
  text: string,
  meta: { source: string; loadedAt: number },
  broken: unknown,
  checkTerminal: TerminalCheck | undefined,
): LastGood {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, merge: true });
  if (doc.errors.length > 0) throw new ConfigError([`${path}: the kept copy of ${meta.source} does not parse`]);
  const raw = doc.toJS() as Record<string, unknown>;
  const secretsMissing = restoreSecrets(raw, broken);
  const config = parseConfig(raw, dirname(meta.source), checkTerminal, { file: path, doc, lines });
  return { path, source: meta.source, loadedAt: meta.loadedAt, config, secretsMissing };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Puts back the secrets kept out of the copy, from the broken file: a terminal's comm key from
 * the terminal of the same name, a URL's password from the same key when the rest of the URL is
 * the same. What cannot be put back is named; a terminal without its comm key is not polled.
 */
function restoreSecrets(raw: Obj, broken: unknown): string[] {
  const missing: string[] = [];
  const old = isObj(broken) ? broken : {};
  const oldTerminals = Array.isArray(old.terminals) ? old.terminals.filter(isObj) : [];
  if (Array.isArray(raw.terminals)) {
    for (const t of raw.terminals.filter(isObj)) {
      const twin = oldTerminals.find((o) => o.name === t.name);
      restoreIn(t, twin, `terminal ${String(t.name)}`, missing);
      if (t.commKey === SECRET_KEPT_OUT) {
        const key = twin?.commKey;
        if (typeof key === 'number') t.commKey = key;
        else {
          t.commKey = 0;
          t.enabled = false;
          missing.push(`the comm key of terminal ${String(t.name)} (it is not polled)`);
        }
      }
    }
  }
  for (const [k, v] of Object.entries(raw)) if (k !== 'terminals' && isObj(v)) restoreIn(v, old[k], k, missing);
  return missing;
}

/** URL passwords in one object (and the objects in it), from the same keys of `twin`. */
function restoreIn(obj: Obj, twin: unknown, where: string, missing: string[]): void {
  for (const [k, v] of Object.entries(obj)) {
    const other = isObj(twin) ? twin[k] : undefined;
    if (isObj(v)) restoreIn(v, other, `${where}.${k}`, missing);
    if (k === 'commKey' || typeof v !== 'string' || !v.includes(SECRET_KEPT_OUT)) continue;
    if (typeof other === 'string' && scrubText(other) === v) obj[k] = other;
    else if (v === SECRET_KEPT_OUT && (typeof other === 'string' || typeof other === 'number')) obj[k] = other;
    else missing.push(`the password in ${where}.${k}`);
  }
}
