/**
 * /usr/share/doc/punchgate/changelog.gz in Debian's format (what dpkg-parsechangelog, apt's
 * changelog and lintian read), made from CHANGELOG.md (Keep a Changelog): one entry per release
 * up to the version built; a version that is not a release of CHANGELOG.md (a development build)
 * gets the Unreleased section.
 */
export interface ChangelogInput {
  markdown: string;
  version: string;
  maintainer: string;
  /** Epoch seconds: the date of an entry that CHANGELOG.md gives none (a development build). */
  time: number;
}

interface Release {
  version: string;
  date?: string;
  /** "### Added" -> its bullets, each one line. */
  sections: Array<{ heading: string; bullets: string[] }>;
}

function releases(markdown: string): Release[] {
  const out: Release[] = [];
  let current: Release | undefined;
  let bullets: string[] | undefined;
  for (const line of markdown.split('\n')) {
    const release = /^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?/.exec(line);
    if (release) {
      current = { version: release[1]!, date: release[2], sections: [] };
      out.push(current);
      bullets = undefined;
      continue;
    }
    if (!current) continue;
    const heading = /^### (.+)$/.exec(line);
    if (heading) {
      bullets = [];
      current.sections.push({ heading: heading[1]!, bullets });
    } else if (bullets && line.startsWith('- ')) bullets.push(line.slice(2).trim());
    else if (bullets && bullets.length > 0 && /^\s+\S/.test(line)) bullets[bullets.length - 1] += ` ${line.trim()}`;
  }
  return out;
}

/** Text wrapped before 80 columns, the first line after `first`, the others after `rest`. */
function wrap(text: string, first: string, rest: string): string[] {
  const lines: string[] = [];
  let prefix = first;
  let words: string[] = [];
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (words.length > 0 && prefix.length + [...words, word].join(' ').length > 79) {
      lines.push(prefix + words.join(' '));
      prefix = rest;
      words = [];
    }
    words.push(word);
  }
  lines.push(prefix + words.join(' '));
  return lines;
}

/** RFC 2822 date, as Debian changelog trailers have it. */
function rfc2822(ms: number): string {
  const d = new Date(ms);
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][d.getUTCDay()];
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()];
  const p = (n: number) => String(n).padStart(2, '0');
  return `${day}, ${p(d.getUTCDate())} ${month} ${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}

function entry(version: string, r: Release, maintainer: string, ms: number): string {
  const items = r.sections.flatMap((s) => s.bullets.map((b) => `${s.heading}: ${b.replace(/`/g, '')}`));
  const body = items.length > 0 ? items : ['No changes written in CHANGELOG.md yet (a development build).'];
  return [
    `punchgate (${version}) stable; urgency=medium`,
    '',
    ...body.flatMap((b) => wrap(b, '  * ', '    ')),
    '',
    ` -- ${maintainer}  ${rfc2822(ms)}`,
  ].join('\n');
}

export function debianChangelog(c: ChangelogInput): string {
  const all = releases(c.markdown);
  const released = all.filter((r) => r.version !== 'Unreleased');
  const entries: string[] = [];
  if (!released.some((r) => r.version === c.version)) {
    const unreleased = all.find((r) => r.version === 'Unreleased') ?? { version: c.version, sections: [] };
    entries.push(entry(c.version, unreleased, c.maintainer, c.time * 1000));
  }
  const index = released.findIndex((r) => r.version === c.version);
  for (const r of index >= 0 ? released.slice(index) : released) {
    if (!r.date) throw new Error(`CHANGELOG.md: release ${r.version} has no date (## [${r.version}] - YYYY-MM-DD)`);
    entries.push(entry(r.version, r, c.maintainer, Date.parse(`${r.date}T12:00:00Z`)));
  }
  return `${entries.join('\n\n')}\n`;
}
