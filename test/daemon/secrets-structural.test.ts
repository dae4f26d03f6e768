import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { startScriptedHrms, type SeenRequest } from '../helpers/scripted-hrms.js';
import { waitFor } from '../helpers/wait.js';
import { everythingWritten, spawnDaemon, startStack, TOKEN } from './stack.js';

/** A command of the built CLI, in a child process (asynchronously: test servers answer from this process). */
function cli(configPath: string, ...args: string[]): Promise<string> {
  const child = spawn(process.execPath, ['dist/punchgate.js', '--config', configPath, ...args], {
    env: { ...process.env, PUNCHGATE_HRMS_TOKEN: '' },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.on('close', () => resolve(out)));
}

/** Every key of a parsed log line whose value holds the redaction marker, with the value. */
function markers(o: unknown, path = ''): Array<[string, unknown]> {
  if (typeof o === 'string') return o.includes('[REDACTED]') ? [[path, o]] : [];
  if (!o || typeof o !== 'object') return [];
  return Object.entries(o).flatMap(([k, v]) => markers(v, path ? `${path}.${k}` : k));
}

describe('secrets are redacted by structure, not by searching text', () => {
  it('a 4-digit comm key: every log line is valid JSON, no marker in timestamps, paths or dates, the key nowhere', async () => {
    // 2026 is the year of every date this test writes and of the clock: a substring scrub would hit them all.
    const KEY = 2026;
    const stack = await startStack({ commKey: KEY });
    try {
      const cfg = parse(readFileSync(stack.configPath, 'utf8'));
      cfg.log = { level: 'debug' };
      // The terminal's name, in nearly every log line, holds the key's digits too.
      cfg.terminals[0].name = `gate-${KEY}`;
      writeFileSync(stack.configPath, stringify(cfg));
      const t = stack.terminals[0]!;
      for (let i = 0; i < 5; i++) t.addPunch({ userId: String(1000 + i), logTime: `2026-11-22 08:0${i}:00` });
      const d = spawnDaemon(stack.configPath);
      await waitFor(() => stack.hrms.attendance().length === 5, 20_000, 'punches delivered');
      // The terminal's line (its last poll, read by `terminals` below) once its poll has ended: a
      // little after its punches are journalled and delivered (the poll waits for the disk sync).
      await waitFor(
        () => /gate-2026\s+online\s+last poll \d{4}-\d\d-\d\d/.test(readStatus(stack.tmp.path('status.txt'))),
        20_000,
        'status log written, the terminal polled',
      );
      const status = await cli(stack.configPath, 'status');
      const statusJson = await cli(stack.configPath, 'status', '--json');
      const terminals = await cli(stack.configPath, 'terminals');
      d.child.kill('SIGTERM');
      await d.exited;

      const lines = d
        .output()
        .split('\n')
        .filter((l) => l.trim() !== '');
      expect(lines.length).toBeGreaterThan(3);
      for (const line of lines) {
        let parsed: unknown;
        expect(() => (parsed = JSON.parse(line)), line).not.toThrow();
        // The marker only ever stands alone, as the value of a key that holds a secret.
        for (const [key, value] of markers(parsed)) {
          expect(value, `${key} in ${line}`).toBe('[REDACTED]');
          expect(key, line).toMatch(/(^|\.)(commKey|token|password|authorization|credentials)$/i);
        }
        expect(JSON.stringify(parsed), line).not.toMatch(/"commKey":\s*"?2026/);
      }
      // Where text legitimately holds the same digits, they are left alone.
      expect(d.output()).toContain(`"terminal":"gate-${KEY}"`);
      for (const text of [status, statusJson, terminals, readStatus(stack.tmp.path('status.txt'))]) {
        expect(text).toMatch(/2026-\d\d-\d\d/);
        expect(text).not.toContain('[REDACTED]');
      }
    } finally {
      await stack.stop();
    }
  }, 60_000);

  it('an HRMS that quotes the Authorization header in per-punch messages: the token is nowhere', async () => {
    // Per punch, the header as received: plain, base64, URL-encoded, base64url of "Bearer <token>".
    const quote = (r: SeenRequest) => {
      const header = String(r.headers.authorization);
      const forms = [
        header,
        Buffer.from(header).toString('base64'),
        encodeURIComponent(header),
        Buffer.from(header).toString('base64url'),
      ];
      return {
        body: {
          Status: true,
          Payload: r.punches.map((_, i) => ({ status: false, message: `Unknown employee (request: ${forms[i % 4]})` })),
        },
      };
    };
    const hrms = await startScriptedHrms(quote);
    const stack = await startStack();
    try {
      const cfg = parse(readFileSync(stack.configPath, 'utf8'));
      cfg.hrms.baseUrl = hrms.url;
      cfg.log = { level: 'debug' };
      writeFileSync(stack.configPath, stringify(cfg));
      const t = stack.terminals[0]!;
      for (let i = 0; i < 8; i++) t.addPunch({ userId: String(1000 + i), logTime: `2026-11-22 08:0${i}:00` });
      const d = spawnDaemon(stack.configPath);
      await waitFor(() => hrms.seen.reduce((n, r) => n + r.punches.length, 0) >= 8, 20_000, 'punches sent');
      await waitFor(() => /rejected/.test(readStatus(stack.tmp.path('status.txt'))), 20_000, 'status shows rejections');
      const outputs = [
        await cli(stack.configPath, 'status'),
        await cli(stack.configPath, 'status', '--json'),
        await cli(stack.configPath, 'punches', '--state', 'rejected'),
        await cli(stack.configPath, 'punches', '--json'),
        await cli(stack.configPath, 'punches', 'export'),
      ];
      d.child.kill('SIGTERM');
      await d.exited;
      expect(outputs[2]).toContain('Unknown employee (request: Bearer [REDACTED])');
      const everything = everythingWritten(stack.tmp.dir, d, outputs);
      const header = `Bearer ${TOKEN}`;
      for (const secret of [
        TOKEN,
        encodeURIComponent(header),
        Buffer.from(header).toString('base64').slice(0, 24),
        Buffer.from(header).toString('base64url').slice(0, 24),
        Buffer.from(TOKEN).toString('base64').slice(0, 12),
      ])
        expect(everything).not.toContain(secret);
    } finally {
      await stack.stop();
      await hrms.stop();
    }
  }, 60_000);
});

function readStatus(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
