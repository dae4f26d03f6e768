import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';
import { spawnDaemon, startStack, statusUrl } from './stack.js';

/** The ZK EXIT command: a terminal that never answers it holds a source's stop for its timeout. */
const CMD_EXIT = 1001;

const reloadLines = (out: string) =>
  out.split('\n').filter((l) => /"msg":"(SIGHUP: reloading the config|config reloaded)"/.test(l));

/**
 * A SIGHUP while a reload still waits (here, for a terminal that does not answer its goodbye):
 * two reloads ran side by side, each applying its own reading of the file, the slower one last.
 * An admin who added a terminal, reloaded, took it out again and reloaded saw it collected on,
 * while the file named it nowhere (an adversarial trial).
 */
describe('punchgate run reloaded again while a reload waits', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('ends on the file as it is now, the second reload after the first', async () => {
    const stack = await startStack({ terminals: 2, zk: { timeoutMs: 2000 } });
    cleanups.push(() => stack.stop());
    const [gate1, gate2] = stack.terminals as [(typeof stack.terminals)[0], (typeof stack.terminals)[0]];
    stack.writeConfig([gate1]);
    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    await statusUrl(d);
    await waitFor(() => d.output().includes('terminal gate-1: real-time events subscribed'), 20_000, 'gate-1 live');

    // gate-1 changed and gate-2 added; gate-1's old source takes its 2 s timeout to stop.
    gate1.setFaults({ dropReplyTo: [CMD_EXIT] });
    stack.writeConfig([gate1, gate2], (c) => (c.terminals[0]!.timeoutMs = 2001));
    d.child.kill('SIGHUP');
    await waitFor(() => reloadLines(d.output()).length >= 1, 10_000, 'the first reload');
    await new Promise((r) => setTimeout(r, 300));
    // Changed back within a second.
    stack.writeConfig([gate1]);
    d.child.kill('SIGHUP');

    // Done: a reload's end the last reload line, none for 3 s (longer than the stuck stop).
    let seen = -1;
    let quietSince = Date.now();
    await waitFor(
      () => {
        const n = reloadLines(d.output()).length;
        if (n !== seen) [seen, quietSince] = [n, Date.now()];
        return n >= 3 && /config reloaded/.test(reloadLines(d.output()).at(-1)!) && Date.now() - quietSince > 3000;
      },
      30_000,
      'the reloads done',
    );
    const last = reloadLines(d.output()).at(-1)!;
    expect(last).toContain('"terminals":["gate-1"],"msg":"config reloaded"');
    const afterLast = d.output().slice(d.output().lastIndexOf('config reloaded'));
    expect(afterLast).not.toContain('gate-2');

    // Counted: a punch at each terminal, only gate-1's is collected and delivered.
    gate1.addPunch({ userId: '1001', logTime: '2026-11-20 09:00:00' });
    gate2.addPunch({ userId: '1001', logTime: '2026-11-20 09:01:00' });
    await waitFor(() => stack.hrms.attendance().length >= 1, 20_000, "gate-1's punch delivered");
    await new Promise((r) => setTimeout(r, 1500));
    expect(stack.hrms.attendance()).toHaveLength(1);
  }, 60_000);
});
