import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

/**
 * A YAML slip is said on the line the admin must edit. A key one level too deep under a key with
 * its value (`host: 10.0.0.5` then `      port: 4370`) was said on the `host` line above it, and a
 * quote left open at the line where the parser gave up (past the end of the file), so the admin
 * looked at correct lines.
 */
describe('punchgate check --config on a YAML slip', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir()));
  afterEach(() => tmp.cleanup());

  const check = (yaml: string) => {
    const file = tmp.path('punchgate.yaml');
    writeFileSync(file, yaml);
    const r = spawnSync(process.execPath, ['dist/punchgate.js', 'check', '--config', file, '--config-only'], {
      encoding: 'utf8',
      env: { ...process.env, PUNCHGATE_HRMS_TOKEN: '' },
    });
    const problems = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => l.includes('punchgate.yaml:'));
    return { status: r.status, problems: problems.map((l) => l.trim().replace(/^.*punchgate\.yaml:/, '')) };
  };
  // Lines 1-4; the first terminal starts at line 5.
  const head = 'site: plant-a\njournal:\n  path: j.db\nterminals:\n';

  const slips: [string, string, RegExp][] = [
    [
      'a key too deep under a key with its value',
      `${head}  - name: gate-1\n    kind: zk\n    host: 10.0.0.5\n        port: 4370\n`,
      /^8: expected "port" to line up with "host" on line 7, found it indented deeper, .*\(the parser stopped at line 7\)/,
    ],
    [
      'a key one step too deep, with a comment and a blank line between',
      `${head}  - name: gate-1\n    kind: zk\n    host: 10.0.0.5 # main door\n\n    # port\n      port: 4370\n    timezone: UTC\n`,
      /^10: expected "port" to line up with the keys above it, found it at another column/,
    ],
    [
      'a key too deep under a top-level block',
      `site: plant-a\njournal:\n  path: j.db\n    retain: 5\nterminals: []\n`,
      /^4: expected "retain" to line up with "path" on line 3/,
    ],
    [
      'a key of a list item too deep under its first key',
      `${head}  - name: gate-1\n      kind: zk\n    host: 10.0.0.5\n`,
      /^6: expected "kind" to line up with "name" on line 5/,
    ],
    [
      'a tab as indent',
      `${head}  - name: gate-1\n    kind: zk\n\tport: 4370\n`,
      /^7: expected spaces before the text, found a tab/,
    ],
    [
      'a "- " before a key among the keys of a list item',
      `${head}  - name: gate-1\n    kind: zk\n    - host: 10.0.0.5\n`,
      /^7: expected a key of the list item above, found "- " starting a list inside it/,
    ],
    [
      'a list item at another column',
      `${head}- name: gate-1\n  kind: zk\n - name: gate-2\n`,
      /^7: expected this "- " to line up with the "- " of the list items above it/,
    ],
    // A new-user trial added a second terminal one space (and no space) left of the first: it was
    // said on the next line as "indent kind like name", and with the parser's own words beside it.
    [
      'a list item one space left of the ones above',
      `${head}  - name: gate-1\n    kind: zk\n - name: gate-2\n    kind: adms\n    serial: X1\n`,
      /^7: expected this "- " to line up with the "- " of the list items above it, found it at another column \(indent it like them\); the parser also stumbled on line 8/,
    ],
    [
      'a list item at the first column below indented ones',
      `${head}  - name: gate-1\n    kind: zk\n- name: gate-2\n    kind: adms\n    serial: X1\n`,
      /^7: expected this "- " to line up with the "- " of the list items above it/,
    ],
    [
      'a double quote left open',
      `${head}  - name: "gate-1\n    kind: zk\n    host: 10.0.0.5\n`,
      /^5: expected the " quote opened on this line to be closed, found none \(the parser read on to line 8/,
    ],
    [
      'a single quote left open, below a name with an apostrophe',
      `${head}  - name: O'Brien door\n    kind: zk\n    host: '10.0.0.5\n    port: 4370\n`,
      /^7: expected the ' quote opened on this line to be closed, found none \(the parser read on to line 9/,
    ],
    [
      'a value holding ": "',
      `${head}  - name: gate-1\n    kind: zk\n    host: 10.0.0.5: 4370\n`,
      /^7: expected one "key: value" here, found a second ": " in the value/,
    ],
  ];

  for (const [what, yaml, said] of slips)
    it(`says ${what} on the line to edit, once, exit 78`, () => {
      const r = check(yaml);
      expect(r.status, yaml).toBe(78);
      expect(r.problems, yaml).toHaveLength(1);
      expect(r.problems[0], yaml).toMatch(said);
    });
});
