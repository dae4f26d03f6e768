import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

/** The README's ZK terminal example and config/punchgate.example.yaml say the same for the keys both show. */
describe('the README and the example config', () => {
  it('agree on every key of the ZK terminal example (syncClock, schedule, realtime...)', () => {
    const readme = readFileSync('README.md', 'utf8');
    const section = readme.slice(readme.indexOf('### ZKTeco terminals'));
    const block = /```yaml\n([\s\S]*?)```/.exec(section)![1]!;
    const fromReadme = (parse(block) as { terminals: Record<string, unknown>[] }).terminals[0]!;
    const example = parse(readFileSync('config/punchgate.example.yaml', 'utf8')) as {
      terminals: Record<string, unknown>[];
    };
    const fromExample = example.terminals.find((t) => t.kind === 'zk')!;
    const shared = Object.keys(fromReadme).filter((k) => k in fromExample);
    expect(shared).toEqual(expect.arrayContaining(['name', 'host', 'port', 'syncClock', 'schedule', 'realtime']));
    for (const k of shared) expect(`${k}: ${String(fromExample[k])}`).toBe(`${k}: ${String(fromReadme[k])}`);
  });
});
