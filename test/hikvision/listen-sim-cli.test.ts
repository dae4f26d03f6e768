import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';
import { PASSWORD } from './helpers.js';
import { startSimProcess } from './sim-process.js';

describe('punchgate sim hikvision --http-host', () => {
  it.each(['json', 'multipart', 'xml'] as const)(
    'posts each new event as %s, and again until it is answered 200',
    async (format) => {
      const got: { type: string; body: string }[] = [];
      let answers = 0;
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          got.push({ type: req.headers['content-type'] ?? '', body: Buffer.concat(chunks).toString('latin1') });
          // The first post of all is refused: the device must post that event again.
          res.writeHead(answers++ === 0 ? 500 : 200).end();
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/listen/hikvision/reception`;
      const sim = await startSimProcess(
        ['--events', '0', '--event-every', '0.2', '--http-host', url, '--listen-format', format],
        PASSWORD,
      );
      try {
        expect(sim.out()).toContain(`posts events to ${url} (${format})`);
        await waitFor(() => got.length >= 4, 20_000, 'posts');
        expect(got[0]!.body).toBe(got[1]!.body); // the refused post, posted again
        const first = got[0]!;
        if (format === 'json') {
          expect(first.type).toMatch(/^application\/json/);
          expect(JSON.parse(first.body)).toMatchObject({
            eventType: 'AccessControllerEvent',
            AccessControllerEvent: { majorEventType: 5, subEventType: 75 },
          });
        } else if (format === 'xml') {
          expect(first.body).toMatch(/<EventNotificationAlert[\s\S]*<eventType>AccessControllerEvent<\/eventType>/);
        } else {
          expect(first.type).toMatch(/^multipart\/form-data; boundary=/);
          expect(first.body).toMatch(
            /name="AccessControllerEvent"[\s\S]*name="Picture"; filename="Picture.jpg"[\s\S]*image\/jpeg/,
          );
        }
        const posts = await sim.admin<{ posts: { delivered: number; attempts: number } }>('GET', 'posts');
        expect(posts.posts.attempts).toBeGreaterThan(posts.posts.delivered);
      } finally {
        sim.child.kill('SIGTERM');
        await new Promise<void>((r) => server.close(() => r()));
      }
    },
    60_000,
  );
});
