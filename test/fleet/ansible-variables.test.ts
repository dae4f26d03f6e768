/**
 * The Ansible role's check of its own variables (contrib/ansible/roles/punchgate/tasks/main.yml),
 * on ansible-playbook itself (.ci/run installs it), in --check mode on this machine: nothing is
 * installed or written. Each bad variable fails the play at its first task, before anything on the
 * box changes, with a line naming the variable, what it wants and what it holds. The role applied
 * for real (as root, from a signed repository) is test/package/ansible.test.ts.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const ROLES = resolve('contrib/ansible/roles');
const tmp = tempDir('punchgate-ansible-vars-');
afterAll(() => tmp.cleanup());

/** One ansible-playbook --check run of the role on localhost with the variables `vars` (as -e JSON, typed). */
function play(vars: Record<string, unknown>): Promise<{ status: number | null; out: string }> {
  writeFileSync(
    tmp.path('play.yml'),
    '- hosts: localhost\n  connection: local\n  gather_facts: false\n  roles: [punchgate]\n',
  );
  return new Promise((done, fail) => {
    const child = spawn(
      'ansible-playbook',
      ['--check', '-i', 'localhost,', '-e', JSON.stringify(vars), tmp.path('play.yml')],
      {
        env: {
          ...process.env,
          ANSIBLE_ROLES_PATH: ROLES,
          ANSIBLE_NOCOLOR: '1',
          ANSIBLE_LOCAL_TEMP: join(tmp.dir, 'local'),
          ANSIBLE_REMOTE_TEMP: join(tmp.dir, 'remote'),
          ANSIBLE_RETRY_FILES_ENABLED: '0',
        },
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', (e) => fail(new Error(`ansible-playbook: ${e.message} (Debian: apt-get install ansible)`)));
    child.on('close', (status) => done({ status, out }));
  });
}

/** A .deb route to a file that is not there: were the check passed, the play would fail at the copy instead. */
const BASE = { punchgate_install_from: 'deb', punchgate_deb: tmp.path('missing.deb'), punchgate_site: 'plant-a' };

describe("the Ansible role's check of its variables", () => {
  it('names each bad variable, what it wants and what it holds, and fails before anything else runs', async () => {
    const r = await play({
      ...BASE,
      // What `ansible-playbook -e punchgate_upgrade=false` passes: the text, which Jinja reads as true.
      punchgate_upgrade: 'false',
      // What YAML makes of an unquoted `punchgate_version: 0.10`.
      punchgate_version: 0.1,
      punchgate_service_manager: 'sytemd',
      punchgate_site: '',
    });
    expect(r.status, r.out).not.toBe(0);
    expect(r.out).toContain(
      `punchgate_upgrade: true or false, not text (ansible-playbook -e punchgate_upgrade=false passes the text \\"false\\", which would upgrade: write -e '{\\"punchgate_upgrade\\": false}', or set it in the inventory), found \\"false\\"`,
    );
    expect(r.out).toContain(
      "punchgate_version: a version as text, quoted in YAML ('0.10': unquoted, 0.10 is the number 0.1), or '' to install once and leave it, found 0.1",
    );
    expect(r.out).toContain(
      'punchgate_service_manager: systemd, command (with punchgate_reload_command) or none, found \\"sytemd\\"',
    );
    expect(r.out).toContain('punchgate_site: the site\'s name (site:), text, unique per box, found \\"\\"');
    // Every problem in the one run, and nothing after the check ran.
    expect(r.out).not.toContain('Copy the package');
    expect(r.out).toMatch(/localhost\s*:\s*ok=0\s+changed=0\s+unreachable=0\s+failed=1/);
  }, 60_000);

  it('a .deb route without its file names punchgate_deb; true and a quoted version pass the check', async () => {
    const r = await play({ ...BASE, punchgate_deb: '' });
    expect(r.out).toContain(
      'punchgate_deb: the path of the .deb on the controller, since punchgate_install_from is deb, found \\"\\"',
    );
    const ok = await play({ ...BASE, punchgate_upgrade: true, punchgate_version: '0.10' });
    // Past the check: the copy of the missing file is what fails.
    expect(ok.out).toMatch(/TASK \[punchgate : Copy the package to the box\]/);
    expect(ok.out).not.toMatch(/failed: \[localhost\] \(item=/);
  }, 60_000);
});
