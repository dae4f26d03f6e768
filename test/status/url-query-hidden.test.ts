import { describe, expect, it } from 'vitest';
import { checkTerminalConfig } from '../../src/sources/build.js';
import { parseConfigText } from '../../src/config/load.js';
import type { BiotimeTerminalConfig, HikvisionTerminalConfig } from '../../src/config/terminals.js';
import { describeHikFault } from '../../src/sources/hikvision/fault.js';
import { HikConnectionError } from '../../src/sources/hikvision/errors.js';
import { terminalProblem } from '../../src/status/terminal-problem.js';

/**
 * A key in a URL's query is a supported form (issue 30). Found by an adversarial trial: the
 * status, the page and the log of a BioTime or Hikvision terminal that failed showed the URL
 * whole, key and all, where `punchgate check` shows `?(not shown)`.
 */
describe('a terminal URL with a key in its query', () => {
  const config = parseConfigText(
    `site: plant-a
journal:
  path: /tmp/j.db
hrms:
  baseUrl: http://127.0.0.1:9
terminals:
  - name: hq
    kind: biotime
    baseUrl: "http://127.0.0.1:28998/x?token=Zq9SecretPwXy7731"
    username: api
    passwordFile: /etc/punchgate/hq.pass
  - name: door
    kind: hikvision
    url: "http://127.0.0.1:28999/?key=Hk9SecretKey4411"
    username: admin
    passwordFile: /etc/punchgate/door.pass
`,
    '/etc/punchgate/punchgate.yaml',
    '/etc/punchgate',
    checkTerminalConfig,
  );
  const [hq, door] = config.terminals as [BiotimeTerminalConfig, HikvisionTerminalConfig];

  it('is never shown, in the status’s own fix or in a fault’s words', () => {
    const shown = [
      terminalProblem(hq, { lastError: 'the server does not answer', lastErrorFix: null }),
      terminalProblem(door, { lastError: 'the terminal does not answer', lastErrorFix: null }),
      describeHikFault(new HikConnectionError('connect ECONNREFUSED'), door, 'terminals[1]'),
    ]
      .map((p) => `${p?.cause} ${p?.fix}`)
      .join('\n');
    expect(shown).toContain('http://127.0.0.1:28998/x?(not shown)');
    expect(shown).toContain('http://127.0.0.1:28999?(not shown)');
    expect(shown).not.toMatch(/Zq9SecretPwXy7731|Hk9SecretKey4411/);
  });
});
