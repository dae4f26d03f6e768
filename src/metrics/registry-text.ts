import type { Registry } from 'prom-client';
import { escapeHelp, escapeLabel, familyHead, sampleLine, type FamilyHead } from './exposition.js';

/** A sample as prom-client's metrics hand it to their registry for the text (getForPromString). */
interface PromValue {
  value: number;
  labels?: Record<string, string | number>;
  /** A histogram's own labels, written after the sample's (`le`). */
  sharedLabels?: Record<string, string | number>;
  /** `_bucket`, `_sum`, `_count` of a histogram; else the family's name. */
  metricName?: string;
}
interface PromFamily {
  name: string;
  help: string;
  type: FamilyHead['type'];
  values?: PromValue[];
}
interface PromMetric {
  get(): Promise<PromFamily> | PromFamily;
  getForPromString?(): Promise<PromFamily> | PromFamily;
}

/**
 * The text of prom-client's families as its registry writes it (`registry.metrics()`: the same
 * lines, label order, escaping and blank line after each family), pushed onto `lines`. Why not
 * that call: it formats each sample by way of arrays of label strings joined and filtered, about
 * a kilobyte of garbage a series, and a scrape has over a hundred of prom-client's series (the
 * Node defaults, the HRMS histogram). Written here a sample costs its line. The registry has no
 * default labels (prom-client's setDefaultLabels), and the format is Prometheus text 0.0.4.
 */
export async function pushRegistryLines(registry: Registry, lines: string[]): Promise<void> {
  // As the registry: every family collected together, then written in the order they were registered.
  const families = await Promise.all(
    (registry.getMetricsAsArray() as unknown as PromMetric[]).map((m) => (m.getForPromString ?? m.get).call(m)),
  );
  for (const family of families) {
    const name = escapeHelp(family.name);
    lines.push(familyHead(family));
    for (const v of family.values ?? [])
      lines.push(sampleLine(v.metricName ?? name, promPairs(v.labels, v.sharedLabels), v.value));
    lines.push('');
  }
}

/** `{name="value",...}`: the sample's own labels but those the shared ones name, then the shared ones. */
function promPairs(labels: PromValue['labels'], shared: PromValue['sharedLabels']): string {
  let pairs = '';
  if (labels)
    for (const key of Object.keys(labels))
      if (!shared || !Object.hasOwn(shared, key))
        pairs += `${pairs ? ',' : ''}${key}="${escapeLabel(String(labels[key]))}"`;
  if (shared)
    for (const key of Object.keys(shared)) pairs += `${pairs ? ',' : ''}${key}="${escapeLabel(String(shared[key]))}"`;
  return pairs ? `{${pairs}}` : '';
}
