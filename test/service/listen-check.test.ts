import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { checkListener, type ListenerToCheck } from '../../src/check/listen-check.js';

/**
 * `punchgate check` before the service runs: a port another program holds (a ZKBioTime server on
 * 8081, a second copy of something on 9330) is a failure that names the program's port and the
 * fix, never a PASS that turns into "address in use" once the service starts (new-user trial).
 */
describe('check of a port punchgate run listens on', () => {
  let other: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (other ? other.close(() => resolve()) : resolve())));

  const occupied = async (): Promise<number> => {
    other = createServer((s) => s.destroy());
    await new Promise<void>((resolve) => other!.listen(0, '127.0.0.1', resolve));
    return (other.address() as { port: number }).port;
  };
  const base = (port: number, over: Partial<ListenerToCheck> = {}): ListenerToCheck => ({
    name: 'adms receiver',
    listener: 'push',
    listen: `127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    daemon: undefined,
    running: false,
    ...over,
  });

  it('fails (receiver) or warns (page) while another program answers on the port and punchgate run is not running', async () => {
    const port = await occupied();
    const r = await checkListener(base(port));
    expect(r.status).toBe('fail');
    expect(r.detail).toBe(
      `another program answers on 127.0.0.1:${port} while punchgate run is not running: punchgate run cannot listen there while it does (a ZKBioTime server also takes 8081)`,
    );
    expect(r.fix).toContain(`sudo ss -ltnp 'sport = :${port}'`);
    expect(r.fix).toContain('adms.listen');
    // The page is for people, the receiver for punches: a warning for the page.
    const page = await checkListener(base(port, { name: 'status page', listener: 'status' }));
    expect(page.status).toBe('warn');
    expect(page.fix).toContain('status.listen');
  });

  it("passes a free port before the start, and the daemon's own word once it runs", async () => {
    const port = await occupied();
    await new Promise<void>((resolve) => other!.close(() => resolve()));
    other = undefined;
    expect((await checkListener(base(port))).status).toBe('pass');
    const up = {
      listener: 'push' as const,
      listen: `127.0.0.1:${port}`,
      up: true,
      downSince: null,
      code: null,
      nextTryAt: null,
    };
    const running = await checkListener(base(port, { running: true, daemon: up }));
    expect(running).toMatchObject({ status: 'pass', detail: `listening on 127.0.0.1:${port}` });
    const down = { ...up, up: false, downSince: new Date().toISOString(), code: 'EADDRINUSE' };
    const held = await checkListener(base(port, { running: true, daemon: down }));
    expect(held.status).toBe('fail');
    expect(held.detail).toContain('another program holds that port');
  });
});
