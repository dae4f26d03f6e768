import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

/** The ZK terminal example of docs/terminals-zkteco.md and config/punchgate.example.yaml say the same for the keys both show. */
describe('the ZKTeco terminals doc and the example config', () => {
  it('agree on every key of the ZK terminal example (syncClock, schedule, realtime...)', () => {
    const doc = readFileSync('docs/terminals-zkteco.md', 'utf8');
    const block = /```yaml\n([\s\S]*?)```/.exec(doc)![1]!;
    const fromDoc = (parse(block) as { terminals: Record<string, unknown>[] }).terminals[0]!;
    const example = parse(readFileSync('config/punchgate.example.yaml', 'utf8')) as {
      terminals: Record<string, unknown>[];
    };
    const fromExample = example.terminals.find((t) => t.kind === 'zk')!;
    const shared = Object.keys(fromDoc).filter((k) => k in fromExample);
    expect(shared).toEqual(expect.arrayContaining(['name', 'host', 'port', 'syncClock', 'schedule', 'realtime']));
    for (const k of shared) expect(`${k}: ${String(fromExample[k])}`).toBe(`${k}: ${String(fromDoc[k])}`);
  });
});
