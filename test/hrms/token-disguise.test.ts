import { describe, expect, it } from 'vitest';
import { spawnDaemon, startStack, statusUrl, TOKEN } from '../daemon/stack.js';
import { runPunchgate } from '../helpers/cli.js';
import { startScriptedHrms, type ScriptedReply, type SeenRequest } from '../helpers/scripted-hrms.js';
import { waitFor } from '../helpers/wait.js';
import { readdirSync, readFileSync } from 'node:fs';
import { SecretRuns } from '../../src/util/secret-runs.js';

/**
 * The token in any disguise: an HRMS that quotes the bearer token back, not as it is but cut
 * short, reversed, spelled out, in hexadecimal, base64, base32, rot13 or percent-encoding, in every place an
 * HRMS text can go (a punch's refusal, a refused request, a server error, a token refusal, an
 * error page). Nothing of it may be kept or shown: the journal file (and its WAL), the status
 * log, `status`, `status --json`, `punches --json`, `punches export`, `punches --history`, the
 * status page, /status.json and the daemon's log are searched for the disguise itself and for
 * any eight characters of the token it carries, each in the disguise's own spelling.
 */
const hex = (s: string) => Buffer.from(s).toString('hex');
const reverse = (s: string) => [...s].reverse().join('');
/** RFC 4648 base32, with padding (written here, not taken from the code under test). */
function base32(s: string): string {
  let bits = '';
  for (const b of Buffer.from(s)) bits += b.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5)
    out += 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out.padEnd(Math.ceil(out.length / 8) * 8, '=');
}
/** ASCII in its fullwidth forms (U+FF01-FF5E), as a CJK input method writes it. */
const fullwidth = (s: string) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
const rot13 = (s: string) =>
  s.replace(/[a-z]/gi, (c) =>
    String.fromCharCode(((c.toLowerCase().charCodeAt(0) - 97 + 13) % 26) + (c <= 'Z' ? 65 : 97)),
  );

/** The disguise, and how many of its characters carry one character of the token. */
const DISGUISES: Record<string, { text: string; width: number }> = {
  'minus its last character': { text: TOKEN.slice(0, -1), width: 1 },
  'minus its first two': { text: TOKEN.slice(2), width: 1 },
  reversed: { text: reverse(TOKEN), width: 1 },
  'in capitals': { text: TOKEN.toUpperCase(), width: 1 },
  'spaced out': { text: [...TOKEN].join(' '), width: 2 },
  'with dots between': { text: [...TOKEN].join('.'), width: 2 },
  hex: { text: hex(TOKEN), width: 2 },
  'hex with colons': { text: hex(TOKEN).match(/../g)!.join(':').toUpperCase(), width: 3 },
  'reversed hex': { text: hex(reverse(TOKEN)), width: 2 },
  'percent-encoded': { text: [...TOKEN].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(''), width: 3 },
  'backslash escapes': { text: [...TOKEN].map((c) => `\\x${c.charCodeAt(0).toString(16)}`).join(''), width: 4 },
  base64: { text: Buffer.from(`Bearer ${TOKEN.slice(0, -1)}`).toString('base64'), width: 4 / 3 },
  interleaved: { text: [...TOKEN].map((c) => `${c}~`).join(''), width: 2 },
  base32: { text: base32(TOKEN), width: 8 / 5 },
  'base32 of "Bearer <token>", lower case': { text: base32(`Bearer ${TOKEN}`).toLowerCase(), width: 8 / 5 },
  rot13: { text: rot13(TOKEN), width: 1 },
  fullwidth: { text: fullwidth(TOKEN), width: 1 },
};

/** Stretches of `text` that spell eight characters of the token in the disguise's own writing. */
function windows(d: { text: string; width: number }): string[] {
  const n = Math.ceil(8 * d.width);
  const out: string[] = [];
  for (let i = 0; i + n <= d.text.length; i++) out.push(d.text.slice(i, i + n));
  return out;
}

describe('the HRMS quoting the token in disguise', () => {
  it('keeps no run of the token in the journal, status, page, export, history or log, and still keeps the HRMS code', async () => {
    const stack = await startStack({ terminals: 1 });
    const names = Object.keys(DISGUISES);
    let n = 0;
    // Each request meets another disguise, in another place of the answer.
    const hrms = await startScriptedHrms((req: SeenRequest): ScriptedReply => {
      const name = names[n % names.length]!;
      const quote = `${DISGUISES[name]!.text}`;
      const place = n++ % 5;
      if (place === 0)
        return {
          body: {
            Status: true,
            Payload: req.punches.map((_, i) =>
              i === 0
                ? { status: false, message: `Employee not found (token ${quote})` }
                : { status: true, message: 'ok' },
            ),
          },
        };
      if (place === 1) return { body: { Status: false, message: `request refused: ${quote}` } };
      if (place === 2) return { status: 500, body: { message: `database error while checking ${quote}` } };
      if (place === 3) return { status: 401, body: { message: `Unauthenticated: ${quote} is not valid` } };
      return { status: 502, body: `<html><body>Bad gateway for Authorization: Bearer ${quote}</body></html>` };
    });
    try {
      const t = stack.terminals[0]!;
      for (let i = 0; i < 40; i++)
        t.addPunch({ userId: String(2000 + i), logTime: `2026-11-23 07:${String(i).padStart(2, '0')}:00` });
      stack.writeConfig(undefined, (c) => {
        c.hrms.baseUrl = hrms.url;
        Object.assign(c.delivery, {
          batchSize: 4,
          retry: { baseMs: 20, maxMs: 100 },
          authRetryMs: 200,
          rejectedRetry: { baseMs: 100, maxMs: 200 },
        });
        (c as Record<string, unknown>).log = { level: 'debug' };
      });
      const d = spawnDaemon(stack.configPath);
      const url = await statusUrl(d);
      // Every disguise in every place at least once (the token refusal holds delivery back a while).
      await waitFor(() => n >= names.length * 5 + 5, 90_000, 'every disguise answered in every place').catch((e) => {
        throw new Error(`${(e as Error).message}: ${n} answers\n${d.output().slice(-3000)}`);
      });
      const page = await (await fetch(url)).text();
      const json = await (await fetch(new URL('/status.json', url))).text();
      const cli = async (...args: string[]) => {
        const r = await runPunchgate(['--config', stack.configPath, ...args]);
        return r.stdout + r.stderr;
      };
      const outputs = [
        page,
        json,
        await cli('status'),
        await cli('status', '--json'),
        await cli('punches', '--json', '--limit', '1000'),
        await cli('punches', 'export'),
        await cli('punches', '--history', '--limit', '1000'),
      ];
      d.child.kill('SIGTERM');
      await d.exited;
      const files = readdirSync(stack.tmp.dir)
        .filter((f) => /journal\.db|status\./.test(f))
        .map((f) => readFileSync(stack.tmp.path(f)).toString('latin1'));
      const everything = [d.output(), ...outputs, ...files].join('\n');
      expect(everything).toContain('[REDACTED]');
      for (const [name, disguise] of Object.entries(DISGUISES)) {
        expect(everything, name).not.toContain(disguise.text);
        for (const w of windows(disguise)) expect(everything.includes(w), `${name}: ${w}`).toBe(false);
      }
      // An independent reading: no stretch of anything written quotes eight characters of the token.
      expect(new SecretRuns([TOKEN]).find(everything)).toEqual([]);
      // What the HRMS said, apart from the token, is still there: its codes and words.
      expect(everything).toMatch(/HTTP 500/);
      expect(everything).toMatch(/Employee not found/);
    } finally {
      await hrms.stop();
      await stack.stop();
    }
  }, 150_000);
});
