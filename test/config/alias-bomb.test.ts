import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText } from '../../src/config/load.js';

/**
 * Found by an adversarial trial: a config whose aliases expand without end ("billion laughs")
 * was refused without a line (`Excessive alias count indicates a resource exhaustion attack`).
 */
describe('a config whose aliases expand without end', () => {
  it('is refused at the first alias’s line, in words, and nothing is expanded', () => {
    const lines = ['site: plant-a', 'journal:', '  path: /tmp/j.db', 'a0: &a0 [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i <= 8; i++)
      lines.push(
        `a${i}: &a${i} [${Array(9)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    lines.push('terminals: []');
    let problems: readonly string[] = [];
    try {
      parseConfigText(lines.join('\n'), '/etc/punchgate/punchgate.yaml', '/etc/punchgate');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      problems = (e as ConfigError).problems;
    }
    expect(problems).toEqual([
      '/etc/punchgate/punchgate.yaml:5: aliases (*name): expected a config of reasonable size, found aliases that expand to too many values: write the values out',
    ]);
  });
});
