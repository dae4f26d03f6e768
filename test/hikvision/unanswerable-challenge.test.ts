import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkHikvisionTerminal } from '../../src/check/hikvision-check.js';
import { readRefusal } from '../../src/sources/hikvision/auth-gate.js';
import { HikvisionPoller } from '../../src/sources/hikvision/index.js';
import { hikConfig, journalFixture, passwordEnv } from './helpers.js';

/**
 * A device whose login punchgate cannot answer (found by the socket-level trial Y2: a Digest
 * challenge with algorithm SHA-512-256, or Basic only). No password was sent, yet the status said
 * "reception refuses the password: set the right password", and polls waited as after a refusal.
 * It is said as what it is, with its fix, and no refusal is counted.
 */
let server: net.Server | undefined;
let asked = 0;
let fx: ReturnType<typeof journalFixture> | undefined;
afterEach(async () => {
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  fx?.cleanup();
  server = fx = undefined;
});

async function device(challenge: string | ((n: number) => string)): Promise<string> {
  server = net.createServer((sock) => {
    sock.on('error', () => {});
    sock.on('data', () => {
      asked++;
      const said = typeof challenge === 'string' ? challenge : challenge(asked);
      sock.write(`HTTP/1.1 401 Unauthorized\r\nwww-authenticate: ${said}\r\ncontent-length: 0\r\n\r\n`);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

describe('Hikvision: a login punchgate cannot answer', () => {
  it.each([
    ['Digest realm="r", qop="auth", nonce="n1", algorithm=SHA-512-256', 'SHA-512-256'],
    ['Basic realm="r"', 'Basic'],
  ])('%s: said plainly, not as a refused password', async (challenge, named) => {
    const url = await device(challenge);
    fx = journalFixture();
    const poller = new HikvisionPoller(hikConfig({ url }, { timeoutMs: 1000 }), fx.deps, undefined, passwordEnv());
    const r = await poller.poll();
    expect(r.ok).toBe(false);
    expect(r.authRefused ?? false).toBe(false);
    expect(r.error).toContain(named);
    // Led by the address: the status and check put the terminal's name before it (not twice).
    expect(r.error).toMatch(/^127\.0\.0\.1:\d+ asks for a login punchgate cannot answer/);
    expect(r.error).not.toMatch(/refuses the password/);
    expect(fx.journal.terminals.get('reception')?.lastError).toBe(r.error);
    // Nothing was refused: the next poll is not held back by a refusal's wait.
    const before = asked;
    expect((await poller.poll()).error).toBe(r.error);
    expect(asked).toBeGreaterThan(before);
  });
});

describe('Hikvision: a device that answers every try with a new stale nonce (trial Y6)', () => {
  it('is said as what it is, not as a refused password, and keeps the refusal wait', async () => {
    const url = await device((n) => `Digest realm="r", qop="auth", nonce="n${n}", stale=true`);
    fx = journalFixture();
    const poller = new HikvisionPoller(hikConfig({ url }, { timeoutMs: 1000 }), fx.deps, undefined, passwordEnv());
    const r = await poller.poll();
    expect(r.authRefused).toBe(true);
    expect(r.error).toMatch(/^reception kept asking again with a new nonce at every login try/);
    expect(r.error).toMatch(/the password may be right/);
    expect(r.error).not.toMatch(/refuses the password/);
    const t = fx.journal.terminals.get('reception');
    expect(t?.lastError).toMatch(/^reception kept asking again with a new nonce at every login try and never said/);
    expect(t?.lastErrorFix).toMatch(/check the terminal's clock.*next try at/);
    // The same wait as a refusal (a password was sent): the next poll sends nothing, and says the same.
    const before = asked;
    const again = await poller.poll();
    expect(again.authRefused).toBe(true);
    expect(again.error).toMatch(/^reception kept asking again with a new nonce/);
    expect(asked).toBe(before);
    // `check` keeps to the wait and says the same; with no wait recorded it meets the loop itself.
    const cfg = hikConfig({ url }, { timeoutMs: 1000 });
    const clock = { now: () => Date.now() };
    const env = passwordEnv();
    const held = await checkHikvisionTerminal(cfg, 0, { clock, env, refusal: readRefusal(fx.deps.state, 'reception') });
    expect(held.detail).toMatch(/^reception kept asking again with a new nonce.*not tried again by check/);
    expect(held.fix).toMatch(/^check the terminal's clock/);
    expect(asked).toBe(before);
    const met = await checkHikvisionTerminal(cfg, 0, { clock, env });
    expect(met.detail).toMatch(/kept asking again with a new nonce at every login try/);
    expect(met.fix).toMatch(/^check the terminal's clock/);
  });
});
