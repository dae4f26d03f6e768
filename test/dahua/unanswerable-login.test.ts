import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDahuaTerminal } from '../../src/check/dahua-check.js';
import { readRefusal } from '../../src/sources/dahua/auth-gate.js';
import { DahuaPoller } from '../../src/sources/dahua/index.js';
import { dahuaConfig, journalFixture } from './helpers.js';

/**
 * Logins that go wrong without the device refusing the password (trial Y6, after the same mend
 * for Hikvision). A 401 that offers only Basic, or a Digest punchgate does not speak, was said as
 * "front-door refuses the password" and held the next polls back, though nothing was sent. A
 * device that answers every try with a new nonce marked stale was said as a refused password too:
 * it keeps the refusal's wait (a password was sent) but says what happened.
 */
let server: net.Server | undefined;
let asked = 0;
let fx: ReturnType<typeof journalFixture> | undefined;
afterEach(async () => {
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  fx?.cleanup();
  server = fx = undefined;
  asked = 0;
});

/** A device that answers every request with a 401 carrying `challenge(n)` (n: the request's number). */
async function device(challenge: (n: number) => string): Promise<{ port: number }> {
  server = net.createServer((sock) => {
    sock.on('error', () => {});
    sock.on('data', () => {
      asked++;
      sock.write(`HTTP/1.1 401 Unauthorized\r\nwww-authenticate: ${challenge(asked)}\r\ncontent-length: 0\r\n\r\n`);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port };
}

describe('Dahua: a login punchgate cannot answer', () => {
  it.each([
    ['Digest realm="r", qop="auth", nonce="n1", algorithm=SHA-512-256', 'SHA-512-256'],
    ['Digest realm="r", qop="auth-int", nonce="n1"', 'qop=auth-int'],
    ['Basic realm="r"', 'Basic'],
  ])('%s: said plainly, not as a refused password, and no wait', async (challenge, named) => {
    const sim = await device(() => challenge);
    fx = journalFixture();
    const poller = new DahuaPoller(dahuaConfig(sim, { passwordFile: fx.passwordFile, timeoutMs: 1000 }), fx.deps);
    const r = await poller.poll();
    expect(r.ok).toBe(false);
    expect(r.authRefused).toBe(false);
    expect(r.error).toContain(named);
    expect(r.error).toMatch(/^127\.0\.0\.1:\d+ asks for a login punchgate cannot answer/);
    expect(r.error).not.toMatch(/refuses the password/);
    const t = fx.journal.terminals.get('front-door');
    expect(t?.lastError).toBe(r.error);
    expect(t?.lastErrorFix).toMatch(/web authentication to digest.*no password was sent/);
    // Nothing was refused: the next poll asks the device again, not held back by a refusal's wait.
    const before = asked;
    expect((await poller.poll()).error).toBe(r.error);
    expect(asked).toBeGreaterThan(before);
  });
});

describe('Dahua: a device that answers every try with a new stale nonce', () => {
  it('is said as what it is, and keeps the refusal wait', async () => {
    const sim = await device((n) => `Digest realm="r", qop="auth", nonce="n${n}", stale=true`);
    fx = journalFixture();
    const poller = new DahuaPoller(dahuaConfig(sim, { passwordFile: fx.passwordFile, timeoutMs: 1000 }), fx.deps);
    const r = await poller.poll();
    expect(r.authRefused).toBe(true);
    expect(r.error).toMatch(/^front-door kept asking again with a new nonce at every login try/);
    expect(r.error).toMatch(/the password may be right/);
    expect(r.error).not.toMatch(/refuses the password/);
    const t = fx.journal.terminals.get('front-door');
    expect(t?.lastErrorFix).toMatch(/check the terminal's clock.*next try at/);
    // The same wait as a refusal: the next poll sends nothing, and says the same.
    const before = asked;
    const again = await poller.poll();
    expect(again.waiting).toBe(true);
    expect(again.error).toBe(r.error);
    expect(asked).toBe(before);
    // `check` keeps to the wait, and says the same.
    const cfg = dahuaConfig(sim, { passwordFile: fx.passwordFile, timeoutMs: 1000 });
    const clock = { now: () => Date.now() };
    const held = await checkDahuaTerminal(cfg, 0, { clock, refusal: readRefusal(fx.deps.state, 'front-door') });
    expect(held.detail).toMatch(/^front-door kept asking again with a new nonce.*not tried again by check/);
    expect(held.fix).toMatch(/^check the terminal's clock/);
    expect(asked).toBe(before);
    // With no wait recorded, `check` meets the loop itself and says it as such.
    const met = await checkDahuaTerminal(cfg, 0, { clock });
    expect(met.detail).toMatch(/^127\.0\.0\.1:\d+ kept asking again with a new nonce/);
    expect(met.fix).toMatch(/^check the terminal's clock.*terminals\[0\]\.passwordFile/);
  });
});
