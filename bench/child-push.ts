/**
 * Child of the `adms` benchmark: N push terminals posting ATTLOG batches after the options
 * handshake (or, as Security PUSH terminals, rtlog batches after registering) to a receiver, each
 * on its own keep-alive connection, each waiting for its OK before the next batch (as push
 * firmware does). Measures from the first POST to the last OK, and each POST's time to OK.
 */
import { createHash } from 'node:crypto';
import { Agent, request } from 'node:http';
import { announceReady, serve } from './lib/child-rpc.js';
import { logTimeAt, pushSerialOf as serialOf } from './lib/punches.js';
import { nowMs, sleep } from './lib/timing.js';

const START_MS = Date.UTC(2024, 0, 2, 6, 0, 0);

interface RunRequest {
  url: string;
  terminals: number;
  batches: number;
  batchSize: number;
  /** Pause between a terminal's OK and its next POST. */
  pauseMs: number;
  /** Distinguishes rounds (fresh punches each round). */
  round: number;
  /** Serial numbers from pushSerialOf(offset) on (default 0). */
  offset?: number;
  /** attendance (ATTLOG, default) or security (registry, push, then rtlog with the cookie). */
  protocol?: 'attendance' | 'security';
}

export interface PushLoadResult {
  ms: number;
  acked: number;
  failed: number;
  latencies: number[];
}

function post(
  agent: Agent,
  url: URL,
  path: string,
  body: Buffer,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path,
        agent,
        headers: { 'Content-Length': String(body.length), 'User-Agent': 'iClock Proxy/1.09', ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    // A receiver that never answers (another process took the port on a shared machine) fails the post, never hangs the bench.
    req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')));
    req.end(body);
  });
}

/**
 * ATTLOG firmware's first request: the options handshake (not timed, as real firmware makes it
 * once at power-up; adms-push.md). Its answer is not needed here, only the terminal's first
 * contact, so that each terminal's first upload is not timed as first contact.
 */
async function handshake(agent: Agent, url: URL, serial: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: 'GET',
        path: `/iclock/cdata?SN=${serial}&options=all&pushver=2.4.1`,
        agent,
      },
      (res) => {
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')));
    req.end();
  });
}

/** Security PUSH: registry and push (not timed), then the cookie every request carries. */
async function register(agent: Agent, url: URL, serial: string): Promise<Record<string, string>> {
  const reg = await post(agent, url, `/iclock/registry?SN=${serial}`, Buffer.from('DeviceType=acc,~DeviceName=bench'));
  const code = /RegistryCode=(\w+)/.exec(reg.text)?.[1] ?? '';
  const push = await post(agent, url, `/iclock/push?SN=${serial}`, Buffer.alloc(0));
  const session = /SessionID=(\w+)/.exec(push.text)?.[1] ?? '';
  return { Cookie: `token=${createHash('md5').update(`${code}${serial}${session}`).digest('hex')}` };
}

async function terminal(r: RunRequest, i: number, out: PushLoadResult): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(r.url);
  const security = r.protocol === 'security';
  try {
    const headers = security ? await register(agent, url, serialOf(i)) : {};
    if (!security) await handshake(agent, url, serialOf(i));
    for (let b = 0; b < r.batches; b++) {
      const lines: string[] = [];
      for (let k = 0; k < r.batchSize; k++) {
        const n = (r.round * r.batches + b) * r.batchSize + k;
        const pin = 1000 + (n % 500);
        const time = logTimeAt(START_MS + n * 7000);
        lines.push(
          security
            ? `time=${time}\tpin=${pin}\tcardno=0\teventaddr=1\tevent=${n % 2 ? 3 : 0}\tinoutstatus=${n % 2}\tverifytype=1\tindex=${n}\tsitecode=0\tlinkid=0\tmaskflag=255\ttemperature=255\tconvtemperature=255`
            : `${pin}\t${time}\t${n % 2}\t1\t0\t\t\t0\t0\t`,
        );
      }
      const body = Buffer.from(lines.join('\n') + '\n');
      const path = security
        ? `/iclock/cdata?SN=${serialOf(i)}&table=rtlog`
        : `/iclock/cdata?SN=${serialOf(i)}&table=ATTLOG&Stamp=${r.round * r.batches + b + 1}`;
      const t0 = nowMs();
      const a = await post(agent, url, path, body, headers).catch(() => ({ status: 0, text: '' }));
      out.latencies.push(nowMs() - t0);
      if (a.status === 200 && a.text.startsWith('OK')) out.acked += r.batchSize;
      else out.failed++;
      if (r.pauseMs > 0) await sleep(r.pauseMs);
    }
  } finally {
    agent.destroy();
  }
}

serve({
  run: async (msg) => {
    const r = msg as unknown as RunRequest;
    const out: PushLoadResult = { ms: 0, acked: 0, failed: 0, latencies: [] };
    const t0 = nowMs();
    await Promise.all(Array.from({ length: r.terminals }, (_, i) => terminal(r, i + (r.offset ?? 0), out)));
    out.ms = nowMs() - t0;
    return out;
  },
});
announceReady({});
