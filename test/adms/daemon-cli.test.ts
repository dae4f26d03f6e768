import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { startPushTerminalSim } from '../../src/sim/push-terminal/index.js';
import { spawnDaemon } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { startPushStack } from './daemon-stack.js';

const cli = (configPath: string, ...args: string[]) => runPunchgate(['--config', configPath, ...args]);

describe('push terminals through punchgate run: status, commands, reload', () => {
  it('shows push terminals and strangers in status, terminals and check; runs admin commands; a reload adds a terminal without dropping connections', async () => {
    const stack = await startPushStack({ terminals: [{ name: 'lobby', serial: 'LOBBY0001' }] });
    const lobby = startPushTerminalSim({
      server: stack.url,
      serial: 'LOBBY0001',
      punches: 120,
      delayMs: 100,
      errorDelayMs: 100,
      timeMode: 'sequence',
      firmware: 'Ver 8.0.4.2-test',
    });
    const stranger = startPushTerminalSim({
      server: stack.url,
      serial: 'STRANGER9',
      punches: 3,
      delayMs: 100,
      errorDelayMs: 100,
    });
    // Commands wait in the journal's queue until the terminal polls: queued before the daemon runs (the
    // journal made as run makes it), the second INFO finds the first still waiting.
    Journal.open({ path: stack.tmp.path('journal.db'), site: 'plant-p', mode: 'owner' }).close();
    const info = await cli(stack.configPath, 'terminals', 'command', 'lobby', 'info');
    expect(info.status).toBe(0);
    expect(info.stdout).toMatch(/^queued INFO for lobby as command \d+/);
    expect((await cli(stack.configPath, 'terminals', 'command', 'lobby', 'INFO')).stdout).toMatch(/already waiting/);
    const d = spawnDaemon(stack.configPath);
    try {
      await waitFor(() => lobby.backlog() === 0, 20_000, 'lobby uploaded');
      await waitFor(() => stack.hrms.attendance().length === 120, 20_000, 'lobby delivered');
      await waitFor(() => stranger.stats().failedRequests >= 2, 10_000, 'stranger refused');
      await waitFor(
        () => readFileSync(stack.tmp.path('status.txt'), 'utf8').includes('STRANGER9'),
        10_000,
        'status log',
      );
      const statusText = readFileSync(stack.tmp.path('status.txt'), 'utf8');
      expect(statusText).toMatch(
        /lobby +online +last contact \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d +last upload \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d +received 120/,
      );
      expect(statusText).toContain('! terminal SN=STRANGER9 is pushing but is not configured (from 127.0.0.1');

      const status = JSON.parse((await cli(stack.configPath, 'status', '--json')).stdout) as {
        terminals: { name: string; online: boolean; push: { received: number } }[];
        pushRefusals: { serial: string; reason: string }[];
      };
      expect(status.terminals[0]).toMatchObject({ name: 'lobby', kind: 'adms', online: true, push: { received: 120 } });
      expect(status.pushRefusals).toEqual([expect.objectContaining({ serial: 'STRANGER9', reason: 'unknown' })]);

      const check = await cli(stack.configPath, 'check');
      expect(check.stdout).toMatch(/PASS adms receiver: listening on 127\.0\.0\.1:\d+/);
      expect(check.stdout).toMatch(/PASS terminal lobby: SN=LOBBY0001, last contact \d+ s ago from 127\.0\.0\.1/);
      expect(check.stdout).toContain(
        'WARN terminal SN=STRANGER9: terminal SN=STRANGER9 is pushing but is not configured',
      );

      // Admin commands through the journal's queue; the terminal takes them at its next poll.
      const backfill = await cli(stack.configPath, 'terminals', 'backfill', 'lobby', '--from', '2000-01-01');
      expect(backfill.stdout).toMatch(/^queued a backfill of 2000-01-01 00:00:00 to \d{4}-/);
      expect((await cli(stack.configPath, 'terminals', 'command', 'lobby', 'FORMAT')).status).not.toBe(0);
      expect((await cli(stack.configPath, 'terminals', 'command', 'nosuch', 'INFO')).status).toBe(78);
      await waitFor(() => lobby.commands().length === 2, 10_000, 'commands applied');
      await waitFor(
        async () =>
          /done/.test((await cli(stack.configPath, 'terminals', 'commands', 'lobby')).stdout.split('\n')[2] ?? ''),
        10_000,
        'results recorded',
      );
      const commands = (await cli(stack.configPath, 'terminals', 'commands', 'lobby')).stdout;
      expect(commands).toMatch(/done .* 0 +DATA QUERY ATTLOG StartTime=2000-01-01 00:00:00 EndTime=/);
      expect(commands).toMatch(/done .* 0 +INFO/);
      // The backfill re-uploads all 120: nothing new for the HRMS.
      await waitFor(() => lobby.stats().intentionalResends === 120, 10_000, 'backfill uploaded');
      expect(stack.hrms.attendance()).toHaveLength(120);

      const terminals = await cli(stack.configPath, 'terminals');
      expect(terminals.stdout).toMatch(/lobby +adms +online/);
      await waitFor(
        async () => (await cli(stack.configPath, 'terminals')).stdout.includes('firmware Ver 8.0.4.2-test'),
        10_000,
        'firmware shown',
      );
      const users = await cli(stack.configPath, 'terminals', 'users', 'lobby');
      expect(users.stdout.split('\n').filter((l) => /^10\d\d /.test(l))).toHaveLength(10);

      // SIGHUP: the stranger is added; lobby keeps its connection.
      const before = lobby.stats();
      stack.writeConfig([
        { name: 'lobby', serial: 'LOBBY0001' },
        { name: 'door', serial: 'STRANGER9' },
      ]);
      d.child.kill('SIGHUP');
      await waitFor(() => stranger.backlog() === 0, 20_000, 'the new push terminal accepted');
      await waitFor(() => stack.hrms.attendance().length === 123, 20_000, 'its punches delivered');
      lobby.addPunches(5);
      await waitFor(() => lobby.backlog() === 0, 10_000, 'lobby still uploading');
      const after = lobby.stats();
      expect(after.failedRequests).toBe(before.failedRequests);
      expect(after.connections).toBe(before.connections);
      expect(after.handshakes).toBe(before.handshakes);
      // Once accepted, the stranger is no longer an alert.
      await waitFor(
        () => !readFileSync(stack.tmp.path('status.txt'), 'utf8').includes('not configured'),
        10_000,
        'alert gone',
      );
    } finally {
      d.child.kill('SIGTERM');
      const exit = await d.exited;
      await lobby.stop();
      await stranger.stop();
      await stack.stop();
      expect(exit, d.output().slice(-3000)).toEqual({ code: 0, signal: null });
    }
  }, 120_000);
});

describe('one-shot commands and push terminals', () => {
  it('imports a push terminal USB export under its serial (dedup with its uploads) and explains poll', async () => {
    const stack = await startPushStack({ terminals: [{ name: 'lobby', serial: 'LOBBY0001' }] });
    try {
      const file = stack.tmp.path('LOBBY0001_attlog.dat');
      writeFileSync(file, '1001\t2026-11-01 08:00:00\t0\t1\t0\t0\n1002\t2026-11-01 08:01:00\t0\t1\t0\t0\n');
      // Only punchgate run creates a journal: make it as it does at its first start.
      Journal.open({ path: stack.tmp.path('journal.db'), site: 'plant-p', mode: 'owner' }).close();
      expect((await cli(stack.configPath, 'import', '--terminal', 'lobby', file)).status).toBe(0);
      const d = spawnDaemon(stack.configPath);
      try {
        await waitFor(() => d.output().includes('push terminal receiver listening'), 20_000, 'receiver up');
        const up = await fetch(`${stack.url}/iclock/cdata?SN=LOBBY0001&table=ATTLOG&Stamp=2`, {
          method: 'POST',
          body: '1001\t2026-11-01 08:00:00\t0\t1\n1002\t2026-11-01 08:01:00\t0\t1\n',
        });
        expect(await up.text()).toBe('OK:2');
        await waitFor(() => stack.hrms.attendance().length === 2, 20_000, 'delivered');
      } finally {
        d.child.kill('SIGTERM');
        await d.exited;
      }
      const status = JSON.parse((await cli(stack.configPath, 'status', '--json')).stdout) as {
        punches: Record<string, number>;
      };
      expect(Object.values(status.punches).reduce((a, b) => a + b)).toBe(2);
      const poll = await cli(stack.configPath, 'poll', '--terminal', 'lobby');
      expect(poll.status).toBe(78);
      expect(poll.stderr).toContain('lobby is a push terminal');
    } finally {
      await stack.stop();
    }
  }, 60_000);
});
