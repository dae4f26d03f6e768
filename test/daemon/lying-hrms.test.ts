import { afterEach, describe, expect, it } from 'vitest';
import { runPunchgate } from '../helpers/cli.js';
import { startScriptedHrms, type ScriptedReply, type SeenRequest } from '../helpers/scripted-hrms.js';
import { waitFor } from '../helpers/wait.js';
import { everythingWritten, keys, punchTimes, spawnDaemon, startStack, TOKEN } from './stack.js';

interface Row {
  biometricCode: string;
  logTime: string;
  state: string;
  attempts: number;
}

/**
 * A real `punchgate run`, fed by a terminal simulator, in front of a seed HRMS written here that
 * lies in the contract's own shapes: it takes at most 5 punches a request and says so in its
 * failure object with an empty `payload` (a PHP server that always writes one); it answers what it
 * took in another order, by devicelogId, with numbers as strings and fields of its own; it answers
 * one request 500 after it stored it; then its token is revoked, said again in the failure object
 * with an empty payload. Counted at every step: the terminal's punches, the journal's, the HRMS's
 * (each stored once), and what `punchgate punches` and `status` say.
 */
describe('punchgate run against a seed HRMS that lies in its own shapes', () => {
  const cleanups: (() => Promise<unknown> | unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('a size limit in an empty-payload failure shrinks the batch, a 500 after storing is not doubled, a revoked token is AUTH FAILED', async () => {
    const stored = new Map<string, number>();
    const heldKeys = new Set<string>();
    let revoked = false;
    let failAfterStoring = 1;
    const reply = (r: SeenRequest): ScriptedReply => {
      if (revoked) return { body: { status: false, message: 'Bearer token is not correct', payload: [] } };
      if (r.punches.length > 5)
        return { body: { status: false, message: 'Batch exceeds the maximum of 5 punches', payload: [] } };
      const results = r.punches.map((p) => {
        const before = stored.get(p.devicelogId) ?? 0;
        stored.set(p.devicelogId, before + 1);
        heldKeys.add(`${p.biometriccode}@${p.logDate}`);
        return before === 0
          ? { devicelogId: p.devicelogId, status: '1', message: 'Attendance added', id: String(900 + stored.size) }
          : { devicelogId: p.devicelogId, status: 'false', message: 'Record already exist', id: null };
      });
      if (r.punches.length > 0 && failAfterStoring > 0) {
        failAfterStoring--;
        return { status: 500, body: '<html><title>500 Internal Server Error</title></html>' };
      }
      return { body: { Status: 'true', Payload: results.reverse(), count: String(results.length), extra: null } };
    };
    const hrms = await startScriptedHrms(reply);
    cleanups.push(() => hrms.stop());
    const stack = await startStack({
      delivery: { batchSize: 20, probeIntervalMs: 200, authRetryMs: 300, retry: { baseMs: 50, maxMs: 300 } },
    });
    cleanups.push(() => stack.stop());
    stack.writeConfig(undefined, (c) => {
      c.hrms.baseUrl = hrms.url;
    });
    const t = stack.terminals[0]!;
    const time = punchTimes('2026-11-26', 7);
    for (let i = 0; i < 13; i++) t.addPunch({ userId: String(4001 + (i % 4)), logTime: time() });

    const d = spawnDaemon(stack.configPath);
    cleanups.push(() => d.child.exitCode === null && d.child.kill('SIGKILL'));
    const cli = (...args: string[]) => runPunchgate(['--config', stack.configPath, ...args]);
    const rows = async (): Promise<Row[]> => {
      const r = await cli('punches', '--json', '--limit', '1000');
      return r.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Row);
    };

    await waitFor(() => heldKeys.size === 13, 30_000, 'every punch at the HRMS, 5 at a time');
    await waitFor(async () => (await rows()).every((r) => r.state === 'delivered'), 20_000, 'every punch delivered');
    const journal = await rows();
    expect(journal).toHaveLength(13);
    expect([...heldKeys].sort()).toEqual(keys(t.punches()));
    // The request answered 500 after it was stored was sent again: the HRMS knew it by devicelogId.
    expect([...stored.values()].filter((n) => n > 1).length).toBeGreaterThan(0);
    expect(hrms.seen.filter((r) => r.punches.length > 5).length).toBeGreaterThan(0);

    // The token revoked, said in the failure object with an empty payload.
    revoked = true;
    for (let i = 0; i < 3; i++) t.addPunch({ userId: '4009', logTime: time() });
    await waitFor(() => /AUTH FAILED/.test(d.output()), 20_000, 'the refused token said');
    await waitFor(async () => (await rows()).length === 16, 20_000, 'the new punches journalled');
    // Waiting, uncharged: read once no claim of them is in flight (delivery tries again meanwhile,
    // and a read under load could meet one); attempts only grow, so a charged one never gets here.
    let waiting: Row[] = [];
    await waitFor(
      async () =>
        (waiting = (await rows()).filter((r) => r.state !== 'delivered')).every((r) => r.state !== 'inflight'),
      20_000,
      'no claim in flight',
    );
    expect(waiting).toHaveLength(3);
    expect(waiting.every((r) => r.state === 'pending' && r.attempts === 0)).toBe(true);
    // The status file is written every status.intervalMs: it says so at its next writing.
    let status = await cli('status');
    await waitFor(
      async () => (status = await cli('status')).stdout.includes('AUTH FAILED'),
      20_000,
      'punchgate status saying AUTH FAILED',
    );
    const check = await cli('check');
    expect(check.stdout + check.stderr).toMatch(/FAIL.*refused the token/);

    // A token the HRMS takes again: the three go in, each once.
    revoked = false;
    await waitFor(() => heldKeys.size === 16, 20_000, 'the held punches delivered once the token is taken');
    await waitFor(async () => (await rows()).every((r) => r.state === 'delivered'), 20_000, 'all delivered');
    expect([...heldKeys].sort()).toEqual(keys(t.punches()));
    expect(everythingWritten(stack.tmp.path(''), d, [status.stdout, check.stdout, check.stderr])).not.toContain(TOKEN);
  }, 120_000);
});
