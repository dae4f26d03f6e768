import { afterEach, describe, expect, it } from 'vitest';
import { http, startReceiver, terminal } from './harness.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * A post to a path nobody answers: a Hikvision terminal whose HTTP Listening URL names a terminal
 * punchgate does not listen for (renamed in the config, `listen: true` not set, a typo), or a
 * terminal whose server address carries a path the receiver does not know. It was answered 404
 * with nothing in the log: its admin saw the terminal post and punchgate say nothing.
 */
describe('push receiver: a request to an unknown path', () => {
  let r: Receiver | undefined;
  afterEach(async () => {
    await r?.stop();
    r = undefined;
  });

  it('is answered 404 and logged (rate-limited, address and path named, the fix said)', async () => {
    r = await startReceiver({ terminals: [terminal('lobby', 'CQZ7232160001')] });
    for (let i = 0; i < 3; i++)
      expect((await http(r.url, 'POST', '/listen/hikvision/old-reception?x=secret', '{}')).status).toBe(404);
    expect((await http(r.url, 'GET', '/cgi-bin/nothing')).status).toBe(404);
    const lines = r.log.lines().filter((l) => String(l.msg).includes('no terminal'));
    const listen = lines.filter((l) => String(l.msg).includes('/listen/hikvision/old-reception'));
    expect(listen).toHaveLength(1); // once, not per request
    expect(listen[0]!.msg).toContain('127.0.0.1');
    expect(listen[0]!.msg).toContain('listen: true');
    expect(r.log.text()).not.toContain('secret'); // the query is not logged
    expect(lines.some((l) => String(l.msg).includes('/cgi-bin/nothing'))).toBe(true);
  });
});
