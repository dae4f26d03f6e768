/**
 * PromQL as the alert rules and dashboards of contrib/ use it, read against what /metrics serves:
 * which metric names and label matchers an expression reads, and what of it /metrics lacks.
 */
import { declaredMetrics } from '../web/helpers.js';

/** Labels Prometheus adds to every scraped series (the target's), and `up`, which it makes itself. */
export const TARGET_LABELS = new Set(['instance', 'job', 'site']);
const PROMETHEUS_OWN = new Set(['up', 'ALERTS']);

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan', 'atan2']);
const LABEL_LISTS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

export interface Selector {
  metric: string;
  /** Label matchers: name, operator, value. */
  matchers: { label: string; op: string; value: string }[];
}

/**
 * The series selectors of a PromQL expression: every metric name it reads, with its label
 * matchers. A small tokenizer, enough for rules and dashboards: strings, label matchers, range
 * selectors, numbers, durations and Grafana variables are tokens of their own; a name followed
 * by "(" is a function or an aggregation; the label lists of by/without/on/ignoring/group_* are
 * skipped.
 */
export function selectors(expr: string): Selector[] {
  const tokens =
    expr.match(
      /"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`[^`]*`|\{[^}]*\}|\[[^\]]*\]|\$\{?\w+\}?|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?[a-z]*|[a-zA-Z_:][a-zA-Z0-9_:]*|\S/g,
    ) ?? [];
  const out: Selector[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (!/^[a-zA-Z_:]/.test(t) || KEYWORDS.has(t.toLowerCase())) continue;
    if (LABEL_LISTS.has(t)) {
      if (tokens[i + 1] === '(') while (i < tokens.length && tokens[i] !== ')') i++;
      continue;
    }
    // A function, or an aggregation (`sum (...)`, `sum by (...) (...)`).
    if (tokens[i + 1] === '(' || tokens[i + 1] === 'by' || tokens[i + 1] === 'without') continue;
    const block = tokens[i + 1]?.startsWith('{') ? tokens[i + 1]! : '';
    const matchers = [...block.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:\\.|[^"\\])*)"/g)].map((m) => ({
      label: m[1]!,
      op: m[2]!,
      value: m[3]!,
    }));
    out.push({ metric: t, matchers });
  }
  return out;
}

/** Every problem of one expression against an exposition (/metrics text): unknown metrics, labels or label values. */
export function problemsIn(expr: string, exposition: string): string[] {
  const declared = declaredMetrics(exposition);
  const series = exposition.split('\n').filter((l) => l && !l.startsWith('#'));
  const problems: string[] = [];
  const found = selectors(expr);
  if (found.length === 0) problems.push(`${expr}: reads no metric`);
  for (const s of found) {
    if (PROMETHEUS_OWN.has(s.metric)) continue;
    const base = s.metric.replace(/_(bucket|sum|count)$/, '');
    const known =
      declared.has(s.metric) ||
      (declared.get(base) === 'histogram' && base !== s.metric) ||
      declared.has(base + '_total');
    if (!known) {
      problems.push(`${expr}: ${s.metric} is not served on /metrics`);
      continue;
    }
    const mine = series.filter((l) => l.startsWith(`${s.metric}{`) || l.startsWith(`${s.metric} `));
    for (const m of s.matchers) {
      if (TARGET_LABELS.has(m.label)) continue;
      const values = mine
        .map((l) => new RegExp(`[{,]${m.label}="([^"]*)"`).exec(l)?.[1])
        .filter((v) => v !== undefined);
      if (values.length === 0) problems.push(`${expr}: ${s.metric} has no label ${m.label}`);
      else if (m.op === '=' && !values.includes(m.value))
        problems.push(
          `${expr}: ${s.metric}{${m.label}} is never "${m.value}" (only ${[...new Set(values)].join(', ')})`,
        );
    }
  }
  return problems;
}
