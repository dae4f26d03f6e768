/**
 * The Prometheus text format (0.0.4) of one metric family, written straight from its samples, as
 * prom-client's registry writes it (the same escaping, number forms and layout).
 *
 * Why not prom-client's Gauge and Counter for the per-terminal families: every scrape reset them
 * and set each sample again, and prom-client keeps a sample as an object under a hash of its
 * labels, then formats it by way of arrays of label strings. With 240 terminals those families
 * are about 1,000 of a scrape's 1,100 lines, and the scrape made about 1.8 MB of garbage: on a
 * busy box the collections that garbage set off were the long tail of the scrape's time (issue 35).
 * Written here, a sample costs its line.
 */
export interface FamilyHead {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary';
}

/** One sample: its label pairs in order (name, value, name, value...), and its value. */
export type Sample = readonly [labels: readonly string[], value: number];

/** Milliseconds (Unix time or a duration) as the seconds Prometheus wants; undefined for none. */
export const seconds = (ms: number | null | undefined) => (ms === null || ms === undefined ? undefined : ms / 1000);

/** HELP text and metric names: backslash and newline escaped (prom-client's escapeString). */
export const escapeHelp = (text: string) => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
/** A label value: backslash, double quote and newline escaped (prom-client's escapeLabelValue). */
export const escapeLabel = (text: string) => (/[\\"\n]/.test(text) ? text.replace(/[\\"\n]/g, escapeChar) : text);
const escapeChar = (c: string) => (c === '\n' ? '\\n' : `\\${c}`);

/** A value as prom-client writes it ('Nan', '+Inf', '-Inf', else the number). */
export function valueText(value: number): string {
  if (Number.isNaN(value)) return 'Nan';
  if (!Number.isFinite(value)) return value < 0 ? '-Inf' : '+Inf';
  return String(value);
}

/** The family's `# HELP` and `# TYPE` lines, without a final newline. */
export function familyHead(head: FamilyHead): string {
  const name = escapeHelp(head.name);
  return `# HELP ${name} ${escapeHelp(head.help)}\n# TYPE ${name} ${head.type}`;
}

/** A sample's labels as its line writes them: `{name="value",...}`, values escaped; empty without labels. */
export function labelPairs(labels: readonly string[]): string {
  let pairs = '';
  for (let i = 0; i + 1 < labels.length; i += 2)
    pairs += `${i === 0 ? '' : ','}${labels[i]!}="${escapeLabel(labels[i + 1]!)}"`;
  return pairs ? `{${pairs}}` : '';
}

/** One sample's line, without a newline: the metric name, its label pairs (labelPairs) and its value. */
export function sampleLine(name: string, pairs: string, value: number): string {
  return `${name}${pairs} ${valueText(value)}`;
}

/** The family's `# HELP` and `# TYPE` lines and one line per sample, without a final newline. */
export function familyText(head: FamilyHead, samples: Iterable<Sample>): string {
  const lines = [familyHead(head)];
  const name = escapeHelp(head.name);
  for (const [labels, value] of samples) lines.push(sampleLine(name, labelPairs(labels), value));
  return lines.join('\n');
}
