import { LineCounter, parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { yamlProblems } from '../../src/config/yaml-problems.js';

const said = (text: string) => {
  const doc = parseDocument(text, { lineCounter: new LineCounter(), prettyErrors: true });
  return yamlProblems(doc.errors, text, 'c.yaml');
};
const head = 'site: plant-a\njournal:\n  path: j.db\nterminals:\n';
const terminal = (name: string, zone: string) =>
  `  - name: ${name}\n    kind: zk\n    host: 10.0.0.3\n${zone}timezone: UTC\n    port: 4370\n`;

// A new-user trial indented `timezone:` by 3 spaces in each of three terminals (one slip, copied):
// check named only the first, calling the other two lines "most likely only" upset by it, so the
// file needed three rounds of check to load.
describe('the same indentation slip made on several lines', () => {
  it('is a problem on each of those lines; the correct lines after them are still only named', () => {
    const lines = said(head + terminal('a', '   ') + terminal('b', '   ') + terminal('c', '   '));
    expect(lines).toHaveLength(3);
    expect(lines.map((l) => l.split(':')[1])).toEqual(['8', '13', '18']);
    for (const l of lines) expect(l).toContain('found it indented in between');
    expect(lines.slice(1).join('\n')).not.toContain('stumbled');
  });

  it('says each tab among the spaces, and still names the correct lines one slip upset', () => {
    const tabs = said(head + terminal('a', '  \t ') + terminal('b', '  \t '));
    expect(tabs.map((l) => l.split(':')[1])).toEqual(['8', '13']);
    for (const l of tabs) expect(l).toContain('found a tab');
    const one = said(`${head}  - name: a\n    kind: zk\n   host: 10.0.0.3\n    port: 4370\n    transport: auto\n`);
    expect(one).toHaveLength(1);
    expect(one[0]).toMatch(/^c\.yaml:7: .*in between; the parser also stumbled on line 8 after it/);
  });
});
